import { type AnyDb, serialPrimaryKey } from './helpers.js';

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('partners')
    .addColumn('id', 'integer', serialPrimaryKey(db))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('business_name', 'text', (c) => c.notNull())
    .addColumn('legal_business_name', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('verified_at', 'bigint')
    .addColumn('business_type', 'text')
    .addColumn('rc_number', 'text')
    .addColumn('address', 'text')
    .addColumn('website', 'text')
    .addColumn('onboarding_status', 'text', (c) => c.notNull().defaultTo('in_progress'))
    .addColumn('review_notes', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('partners_onboarding_status_idx')
    .on('partners')
    .columns(['onboarding_status', 'id'])
    .execute();

  await db.schema
    .createTable('otp_codes')
    .addColumn('partner_id', 'integer', (c) => c.primaryKey().references('partners.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_partner_idx').on('sessions').column('partner_id').execute();
  await db.schema.createIndex('sessions_expires_idx').on('sessions').column('expires_at').execute();

  await db.schema
    .createTable('login_attempts')
    .addColumn('email', 'text', (c) => c.primaryKey())
    .addColumn('window_started_at', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('throttles')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('last_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('partner_id', 'integer')
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'text')
    .addColumn('metadata', 'text')
    .addColumn('request_id', 'text')
    .addColumn('ip', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('audit_events_partner_idx')
    .on('audit_events')
    .columns(['partner_id', 'id'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const table of ['audit_events', 'throttles', 'login_attempts', 'sessions', 'otp_codes', 'partners']) {
    await db.schema.dropTable(table).execute();
  }
}
