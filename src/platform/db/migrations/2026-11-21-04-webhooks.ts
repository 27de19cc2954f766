import type { AnyDb } from './helpers.js';

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret_encrypted', 'text', (c) => c.notNull())
    .addColumn('previous_secret_encrypted', 'text')
    .addColumn('previous_secret_expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_endpoints_pk', ['partner_id', 'environment'])
    .execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull().references('outbox_events.id').onDelete('cascade'))
    .addColumn('partner_id', 'integer', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('succeeded', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_attempts_number_unique')
    .on('webhook_attempts')
    .columns(['event_id', 'attempt'])
    .unique()
    .execute();
  await db.schema
    .createIndex('webhook_attempts_partner_idx')
    .on('webhook_attempts')
    .columns(['partner_id', 'environment', 'id'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('webhook_attempts').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
}
