import { sql } from 'kysely';
import type { AnyDb } from './helpers.js';

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('representatives')
    .addColumn('partner_id', 'integer', (c) => c.primaryKey().references('partners.id').onDelete('cascade'))
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('dob', 'text', (c) => c.notNull())
    .addColumn('gender', 'text', (c) => c.notNull())
    .addColumn('designation', 'text', (c) => c.notNull())
    .addColumn('id_type', 'text', (c) => c.notNull())
    .addColumn('id_file_url', 'text')
    .addColumn('id_document_id', 'text')
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('bvn_encrypted', 'text', (c) => c.notNull())
    .addColumn('bvn_hash', 'text', (c) => c.notNull())
    .addColumn('bvn_last4', 'text', (c) => c.notNull())
    .addColumn('kyc_status', 'text', (c) => c.notNull())
    .addColumn('kyc_message', 'text', (c) => c.notNull())
    .addColumn('kyc_provider', 'text', (c) => c.notNull())
    .addColumn('kyc_checked_at', 'bigint', (c) => c.notNull())
    .addColumn('bvn_verified_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('kyc_checks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('bvn_last4', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('kyc_checks_partner_idx')
    .on('kyc_checks')
    .columns(['partner_id', 'id'])
    .execute();

  await db.schema
    .createTable('documents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('document_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('rejection_reason', 'text')
    .addColumn('storage_key', 'text')
    .addColumn('file_url', 'text')
    .addColumn('content_type', 'text')
    .addColumn('size_bytes', 'integer')
    .addColumn('sha256', 'text')
    .addColumn('uploaded_at', 'bigint', (c) => c.notNull())
    .addColumn('reviewed_at', 'bigint')
    .addColumn('superseded_at', 'bigint')
    .execute();
  // One current document per type and partner: two racing uploads cannot both stay current.
  await db.schema
    .createIndex('documents_current_idx')
    .on('documents')
    .columns(['partner_id', 'document_type'])
    .unique()
    .where(sql.ref('superseded_at'), 'is', null)
    .execute();

  await db.schema
    .createTable('outbox_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('locked_until', 'bigint')
    .addColumn('lease_token', 'text')
    .addColumn('delivered_at', 'bigint')
    .addColumn('last_error', 'text')
    .execute();
  await db.schema
    .createIndex('outbox_events_due_idx')
    .on('outbox_events')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema.createIndex('outbox_events_lease_idx').on('outbox_events').column('locked_until').execute();
  await db.schema
    .createIndex('outbox_events_partner_idx')
    .on('outbox_events')
    .columns(['partner_id', 'environment', 'created_at'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const table of ['outbox_events', 'documents', 'kyc_checks', 'representatives']) {
    await db.schema.dropTable(table).execute();
  }
}
