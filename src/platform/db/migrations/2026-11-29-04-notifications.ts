import type { AnyDb } from './helpers.js';

/**
 * Notification e-mails: an HTML body beside the plain-text one (encrypted like it, erased with it),
 * and per webhook endpoint the failing episode that the "failing for an hour" e-mail reports: when
 * its automatic deliveries started failing (cleared by a success) and when the e-mail went out.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable('mail_outbox').addColumn('html_encrypted', 'text').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('failing_since', 'bigint').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('failure_notified_at', 'bigint').execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').dropColumn('failure_notified_at').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('failing_since').execute();
  await db.schema.alterTable('mail_outbox').dropColumn('html_encrypted').execute();
}
