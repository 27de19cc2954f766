import { sql } from 'kysely';
import { type AnyDb, isPostgres } from './helpers.js';

/**
 * Indexes for a big data set: each serves a predicate exactly as the repositories write it, so
 * EXPLAIN shows a range of an index, never a scan of a table or of a partner's whole index, nor a sort
 * (test/platform/query-plans.test.ts; why each, in docs/decisions.md, "Indexes at volume").
 *
 * - An account by number (`partner_id = ? and environment = ? and account_number = ?`: get,
 *   transactions, statement, simulated credit, transfers) and the account list's `email` filter: on
 *   PostgreSQL the prefix indexes of 2026-11-28-03 carry COLLATE "C", which an equality in the
 *   column's own collation cannot use, so each gets a plain index (the e-mail's ending in id, the list's
 *   order). SQLite's prefix indexes already are plain (BINARY) and serve both (an e-mail's few
 *   accounts are sorted there).
 * - The account list's `status` filter (inactive and closed accounts are the rare ones): (…, status, id).
 * - The events list pages by id: its scope index moves from (…, created_at) to (…, id), a `type`
 *   filter gets (…, type, id), and housekeeping's 30-day purge (`created_at < ? and status <> 'pending'`,
 *   every partner) gets `created_at` alone, partial as its predicate.
 * - The operator's audit list pages by id: `action`, `actor_type` and `actor_id` each get an index
 *   ending in id (the partner filter has had one from the start).
 */
const POSTGRES_ONLY = [
  ['virtual_accounts_number_idx', 'virtual_accounts', ['partner_id', 'environment', 'account_number']],
  ['virtual_accounts_email_idx', 'virtual_accounts', ['partner_id', 'environment', 'customer_email', 'id']],
] as const;

const BOTH = [
  ['virtual_accounts_status_idx', 'virtual_accounts', ['partner_id', 'environment', 'status', 'id']],
  ['outbox_events_scope_idx', 'outbox_events', ['partner_id', 'environment', 'id']],
  ['outbox_events_type_idx', 'outbox_events', ['partner_id', 'environment', 'type', 'id']],
  ['audit_events_action_idx', 'audit_events', ['action', 'id']],
  ['audit_events_actor_type_idx', 'audit_events', ['actor_type', 'id']],
  ['audit_events_actor_idx', 'audit_events', ['actor_id', 'id']],
] as const;

const indexesOf = (db: AnyDb) => (isPostgres(db) ? [...POSTGRES_ONLY, ...BOTH] : BOTH);

export async function up(db: AnyDb): Promise<void> {
  for (const [name, table, columns] of indexesOf(db)) {
    await db.schema
      .createIndex(name)
      .on(table)
      .columns([...columns])
      .execute();
  }
  // Partial, as the purge's predicate: no list can read it (they do not exclude pending events), so
  // no planner is tempted to fetch a time window through it and sort the window by id.
  await db.schema
    .createIndex('outbox_events_settled_created_idx')
    .on('outbox_events')
    .column('created_at')
    .where(sql.ref('status'), '<>', 'pending')
    .execute();
  // Superseded by outbox_events_scope_idx: the list orders by id, not by created_at.
  await db.schema.dropIndex('outbox_events_partner_idx').execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema
    .createIndex('outbox_events_partner_idx')
    .on('outbox_events')
    .columns(['partner_id', 'environment', 'created_at'])
    .execute();
  await db.schema.dropIndex('outbox_events_settled_created_idx').execute();
  for (const [name] of indexesOf(db)) await db.schema.dropIndex(name).execute();
}
