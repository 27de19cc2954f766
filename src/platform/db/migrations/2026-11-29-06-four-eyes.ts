import { sql } from 'kysely';
import type { AnyDb } from './helpers.js';

/**
 * Four eyes: an admin's proposal to approve, suspend or reinstate a partner, which another admin
 * confirms or declines (or its proposer withdraws). At most one pending proposal per partner and
 * action, enforced by a partial unique index so that two racing proposals cannot both be pending.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('decision_proposals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('internal_note', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('proposed_by_type', 'text', (c) => c.notNull())
    .addColumn('proposed_by_id', 'text', (c) => c.references('operators.id'))
    .addColumn('settled_by_type', 'text')
    .addColumn('settled_by_id', 'text', (c) => c.references('operators.id'))
    .addColumn('settled_at', 'bigint')
    .addColumn('decline_reason', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('decision_proposals_pending_idx')
    .on('decision_proposals')
    .columns(['partner_id', 'action'])
    .unique()
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await db.schema
    .createIndex('decision_proposals_status_idx')
    .on('decision_proposals')
    .columns(['status', 'id'])
    .execute();
  await db.schema
    .createIndex('decision_proposals_partner_idx')
    .on('decision_proposals')
    .columns(['partner_id', 'id'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('decision_proposals').execute();
}
