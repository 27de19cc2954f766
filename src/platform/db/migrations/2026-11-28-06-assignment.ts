import type { AnyDb } from './helpers.js';

/**
 * Who is working on a partner in the review queue: an operator claims it, an admin can hand it to
 * another. Deleting an operator (never done: they are disabled) would leave the partner unassigned.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable('partners')
    .addColumn('assigned_operator_id', 'text', (c) => c.references('operators.id').onDelete('set null'))
    .execute();
  await db.schema.alterTable('partners').addColumn('assigned_at', 'bigint').execute();
  await db.schema
    .createIndex('partners_assigned_operator_idx')
    .on('partners')
    .columns(['assigned_operator_id', 'id'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('partners_assigned_operator_idx').execute();
  await db.schema.alterTable('partners').dropColumn('assigned_at').execute();
  await db.schema.alterTable('partners').dropColumn('assigned_operator_id').execute();
}
