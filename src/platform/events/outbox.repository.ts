import type { Insertable } from 'kysely';
import { newId } from '../crypto/tokens.js';
import type { Environment } from '../environment.js';
import type { OutboxEventsTable } from './outbox.table.js';

/** Every kind of event a partner's webhook receives (CONTRACT 4.5, 4.6). */
export const EVENT_TYPES = [
  'virtual_account.created',
  'virtual_account.credited',
  'virtual_account.status_changed',
  'onboarding.status_changed',
  'document.reviewed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Turns an event's data into the JSON delivered (and kept) for it, by the event type's schema. */
export type EventSerializer = (type: EventType, data: unknown) => string;

/**
 * A webhook-id in Standard Webhooks' style, stable for the event across every retry. Time-ordered
 * (a UUIDv7 underneath), so inserts append to the primary-key index instead of touching a random page.
 */
export const newEventId = (): string => `msg_${newId().replaceAll('-', '')}`;

/**
 * The outbox rows of an event, one per environment it goes to. Written in the transaction (or the one
 * statement) of the change, so the event exists if and only if the change committed.
 */
export function outboxRows(
  event: {
    partnerId: number;
    environments: readonly Environment[];
    type: EventType;
    /** The data as serialized by the event type's schema (EventSerializer). */
    payload: string;
  },
  now: number,
): Array<Insertable<OutboxEventsTable>> {
  return event.environments.map((environment) => ({
    id: newEventId(),
    partner_id: event.partnerId,
    environment,
    type: event.type,
    payload: event.payload,
    created_at: now,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    locked_until: null,
    lease_token: null,
    delivered_at: null,
    last_error: null,
  }));
}
