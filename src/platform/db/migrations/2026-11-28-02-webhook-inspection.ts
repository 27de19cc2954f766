import type { AnyDb } from './helpers.js';

/**
 * What a partner needs to debug a receiver: the start of each attempt's response body (capped text,
 * never the request or its signature), and an index that lists an environment's events by delivery
 * status, newest first, without reading the others.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable('webhook_attempts').addColumn('response_body_excerpt', 'text').execute();
  await db.schema
    .createIndex('outbox_events_partner_status_idx')
    .on('outbox_events')
    .columns(['partner_id', 'environment', 'status', 'id'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('outbox_events_partner_status_idx').execute();
  await db.schema.alterTable('webhook_attempts').dropColumn('response_body_excerpt').execute();
}
