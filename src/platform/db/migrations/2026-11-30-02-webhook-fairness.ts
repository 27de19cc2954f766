import { sql } from 'kysely';
import type { AnyDb } from './helpers.js';

/**
 * Webhook delivery per endpoint, fair between partners (docs/decisions.md, "Webhook fairness"):
 *
 * - An endpoint's lane: the worker instance that holds it (`lane_token`, until `lane_until`) is the
 *   only one sending that endpoint's events; lanes are taken least recently served first
 *   (`lane_served_at`), so every endpoint with due events gets its turn whatever another's backlog.
 * - A scope's due events, oldest first, from a partial index on the pending ones only: a lane's batch
 *   is a short range of it, and the settled events (nearly all of the table) are not in it.
 * - An attempt is written before its request is sent (`in_flight_until`: the lease it was sent
 *   under) and completed after; one never completed shows as `outcome_unknown` once that has passed.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('lane_token', 'text').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('lane_until', 'bigint').execute();
  await db.schema
    .alterTable('webhook_endpoints')
    .addColumn('lane_served_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('webhook_attempts').addColumn('in_flight_until', 'bigint').execute();
  await db.schema
    .createIndex('outbox_events_pending_due_idx')
    .on('outbox_events')
    .columns(['partner_id', 'environment', 'next_attempt_at', 'id'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('outbox_events_pending_due_idx').execute();
  await db.schema.alterTable('webhook_attempts').dropColumn('in_flight_until').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('lane_served_at').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('lane_until').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('lane_token').execute();
}
