import type { AnyDb } from './helpers.js';

/** The notification kinds each dashboard user turned off (a row per user and kind). */
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('notification_mutes')
    .addColumn('user_id', 'text', (column) => column.notNull())
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('notification_mutes_pk', ['user_id', 'kind'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('notification_mutes').execute();
}
