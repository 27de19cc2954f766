import type { AnyDb } from './helpers.js';

/**
 * The internal note of the latest operator decision on a partner (request changes, reject, suspend):
 * seen by operators only, never by the partner (a suspension for suspicious activity must not tell
 * the partner why). The audit trail keeps every note; this column is the one the console shows.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable('partners').addColumn('internal_note', 'text').execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable('partners').dropColumn('internal_note').execute();
}
