import { type Insertable, sql } from 'kysely';
import { newId } from '../crypto/tokens.js';
import type { Environment } from '../environment.js';
import type { OutboxEventsTable } from './outbox.table.js';

/**
 * A webhook-id in Standard Webhooks' style, stable for the event across every retry. Time-ordered
 * (a UUIDv7 underneath), so inserts append to the primary-key index instead of touching a random page.
 */
export const newEventId = (): string => `msg_${newId().replaceAll('-', '')}`;

/** Why an event is not delivered: recorded as its last_error, at insertion or by the worker. */
export const NO_ENDPOINT = 'no webhook endpoint is set for this environment';

/**
 * The outbox rows of an event, one per environment it goes to. Written in the transaction (or the one
 * statement) of the change, so the event exists if and only if the change committed. An event of an
 * environment without a webhook endpoint is written as skipped, decided in the insert itself: it
 * costs one primary-key lookup, where settling it afterwards rewrote the row and its index entry (the
 * worker's skip was a tenth of an account creation's CPU for a partner without an endpoint).
 */
export function outboxRows(
  event: {
    partnerId: number;
    environments: readonly Environment[];
    /** An event type of the catalog (catalog.ts). */
    type: string;
    /** The data as serialized by the event type's schema (EventSerializer). */
    payload: string;
  },
  now: number,
): Array<Insertable<OutboxEventsTable>> {
  return event.environments.map((environment) => {
    const hasEndpoint = sql<boolean>`exists (select 1 from webhook_endpoints where partner_id = ${event.partnerId} and environment = ${environment})`;
    return {
      id: newEventId(),
      partner_id: event.partnerId,
      environment,
      type: event.type,
      payload: event.payload,
      created_at: now,
      status: sql<OutboxEventsTable['status']>`case when ${hasEndpoint} then 'pending' else 'skipped' end`,
      attempts: 0,
      next_attempt_at: now,
      locked_until: null,
      lease_token: null,
      delivered_at: null,
      last_error: sql<string | null>`case when ${hasEndpoint} then null else ${NO_ENDPOINT} end`,
    } as unknown as Insertable<OutboxEventsTable>;
  });
}
