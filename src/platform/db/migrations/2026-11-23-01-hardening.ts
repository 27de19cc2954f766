import { sql } from 'kysely';
import type { AnyDb } from './helpers.js';

/**
 * One-time codes keyed by e-mail address and purpose (verification, password reset) instead of by
 * partner, so an unknown address is counted exactly like a registered one; partners remember when
 * they were last sent a code (unverified accounts are deleted 24 hours later); a generic
 * fixed-window counter; and the durable outbox of e-mails.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('one_time_codes')
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('one_time_codes_pk', ['email', 'purpose'])
    .execute();
  await db.schema
    .createIndex('one_time_codes_expires_idx')
    .on('one_time_codes')
    .column('expires_at')
    .execute();
  // Codes pending at upgrade are not carried over: their hashes were keyed by partner id, and they
  // live 10 minutes anyway (resend-otp issues a new one).
  await db.schema.dropTable('otp_codes').execute();

  await db.schema.alterTable('partners').addColumn('last_code_at', 'bigint').execute();
  await sql`update partners set last_code_at = created_at where verified_at is null`.execute(db);
  await db.schema
    .createIndex('partners_unverified_idx')
    .on('partners')
    .columns(['verified_at', 'last_code_at'])
    .execute();

  await db.schema
    .createTable('rate_windows')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('window_started_at', 'bigint', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body_encrypted', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('locked_until', 'bigint')
    .addColumn('lease_token', 'text')
    .addColumn('discard_after', 'bigint', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('sent_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('mail_outbox_due_idx')
    .on('mail_outbox')
    .columns(['status', 'next_attempt_at'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('mail_outbox').execute();
  await db.schema.dropTable('rate_windows').execute();
  await db.schema.dropIndex('partners_unverified_idx').execute();
  await db.schema.alterTable('partners').dropColumn('last_code_at').execute();
  await db.schema
    .createTable('otp_codes')
    .addColumn('partner_id', 'integer', (c) => c.primaryKey().references('partners.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.dropTable('one_time_codes').execute();
}
