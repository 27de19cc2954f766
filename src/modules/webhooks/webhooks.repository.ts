import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import { knownValue } from '../../platform/db/dialect.js';
import type { Database } from '../../platform/db/schema.js';
import type { Environment } from '../../platform/environment.js';
import type { OutboxEventsTable } from '../../platform/events/outbox.table.js';
import type { WebhookAttemptsTable, WebhookEndpointsTable } from './webhooks.table.js';

export type EndpointRow = Selectable<WebhookEndpointsTable>;
export type EventRow = Selectable<OutboxEventsTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

export interface Scope {
  partnerId: number;
  environment: Environment;
}

export function findEndpoint(db: Kysely<Database>, scope: Scope): Promise<EndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .executeTakeFirst();
}

export async function upsertEndpoint(
  db: Kysely<Database>,
  row: Insertable<WebhookEndpointsTable>,
): Promise<void> {
  await db
    .insertInto('webhook_endpoints')
    .values(row)
    .onConflict((conflict) =>
      conflict.columns(['partner_id', 'environment']).doUpdateSet({
        url: row.url,
        secret_encrypted: row.secret_encrypted,
        previous_secret_encrypted: row.previous_secret_encrypted ?? null,
        previous_secret_expires_at: row.previous_secret_expires_at ?? null,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

export async function deleteEndpoint(db: Kysely<Database>, scope: Scope): Promise<boolean> {
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Due, unleased events, earliest due first, straight off the (status, next_attempt_at) index. */
export function dueEvents(db: Kysely<Database>, now: number, limit: number) {
  return db
    .selectFrom('outbox_events')
    .select(['id', 'partner_id', 'environment', 'created_at'])
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The partners and environments that have an event in flight (leased by any worker). */
export function leasedScopes(db: Kysely<Database>, now: number) {
  return db
    .selectFrom('outbox_events')
    .select(['partner_id', 'environment'])
    .distinct()
    .where('locked_until', '>=', now)
    .where('status', '=', 'pending')
    .execute();
}

/**
 * Leases the chosen events to one worker. Conditional on each row still being pending and
 * unleased, so when several instances choose the same event only one gets it.
 */
export async function leaseEvents(
  db: Kysely<Database>,
  ids: readonly string[],
  lease: { now: number; until: number; token: string },
): Promise<EventRow[]> {
  if (ids.length === 0) return [];
  return db
    .updateTable('outbox_events')
    .set({ locked_until: lease.until, lease_token: lease.token })
    .where('id', 'in', [...ids])
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', lease.now)]))
    .returningAll()
    .execute();
}

/** The endpoints of the given partners' environments, in one statement. */
export function findEndpoints(db: Kysely<Database>, scopes: readonly Scope[]): Promise<EndpointRow[]> {
  if (scopes.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where((eb) =>
      eb.or(
        scopes.map((scope) =>
          eb.and([eb('partner_id', '=', scope.partnerId), eb('environment', '=', scope.environment)]),
        ),
      ),
    )
    .execute();
}

/**
 * Skips every due, unleased event of every environment that has no endpoint, in one statement (order
 * does not matter for events that go nowhere); the number skipped.
 */
export async function skipWithoutEndpoint(
  db: Kysely<Database>,
  now: number,
  reason: string,
): Promise<number> {
  const result = await db
    .updateTable('outbox_events')
    .set({ status: 'skipped', last_error: reason })
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .where(({ exists, not, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_endpoints')
            .select('webhook_endpoints.partner_id')
            .whereRef('webhook_endpoints.partner_id', '=', 'outbox_events.partner_id')
            .whereRef('webhook_endpoints.environment', '=', 'outbox_events.environment'),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Numbers an attempt of the event (automatic or manual) with one atomic increment: attempt numbers
 * never repeat, whoever made the attempt.
 */
export async function nextAttemptNumber(db: Kysely<Database>, eventId: string): Promise<number> {
  const row = await db
    .updateTable('outbox_events')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', eventId)
    .returning('attempts')
    .executeTakeFirstOrThrow();
  return row.attempts;
}

/**
 * Records the outcome of a leased event and releases the lease; a worker whose lease was taken over
 * changes nothing. An event a manual retry delivered meanwhile stays delivered.
 */
export async function settleEvent(
  db: Kysely<Database>,
  event: { id: string; token: string },
  outcome: {
    status: EventRow['status'];
    nextAttemptAt?: number;
    deliveredAt: number | null;
    lastError: string | null;
  },
): Promise<boolean> {
  const result = await db
    .updateTable('outbox_events')
    .set((eb) => ({
      status: eb
        .case()
        .when('status', '=', 'delivered')
        .then(eb.ref('status'))
        .else(eb.val(outcome.status))
        .end(),
      delivered_at: eb
        .case()
        .when('status', '=', 'delivered')
        .then(eb.ref('delivered_at'))
        .else(outcome.deliveredAt)
        .end(),
      ...(outcome.nextAttemptAt !== undefined ? { next_attempt_at: outcome.nextAttemptAt } : {}),
      last_error: outcome.lastError,
      locked_until: null,
      lease_token: null,
    }))
    .where('id', '=', event.id)
    .where('lease_token', '=', event.token)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** A successful manual resend settles an event that was still pending or had given up. */
export async function markDelivered(db: Kysely<Database>, eventId: string, now: number): Promise<void> {
  await db
    .updateTable('outbox_events')
    .set({ status: 'delivered', delivered_at: now, last_error: null })
    .where('id', '=', eventId)
    .where('status', '!=', 'delivered')
    .execute();
}

export function findEvent(
  db: Kysely<Database>,
  scope: Scope,
  eventId: string,
): Promise<EventRow | undefined> {
  return db
    .selectFrom('outbox_events')
    .selectAll()
    .where('id', '=', eventId)
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .executeTakeFirst();
}

/** An event made and delivered in one go (a test event): written settled, so no worker sends it. */
export async function insertEvent(db: Kysely<Database>, row: Insertable<OutboxEventsTable>): Promise<void> {
  await db.insertInto('outbox_events').values(row).execute();
}

export async function insertAttempt(
  db: Kysely<Database>,
  row: Insertable<WebhookAttemptsTable>,
): Promise<void> {
  await db.insertInto('webhook_attempts').values(row).execute();
}

const ATTEMPT_COLUMNS = [
  'a.id',
  'a.event_id',
  'a.attempt',
  'a.trigger',
  'a.url',
  'a.succeeded',
  'a.status_code',
  'a.latency_ms',
  'a.error',
  'a.response_body_excerpt',
  'a.created_at',
  'e.type as event_type',
] as const;

export function listAttempts(
  db: Kysely<Database>,
  scope: Scope,
  filter: { beforeId?: string; eventId?: string; limit: number },
) {
  let query = db
    .selectFrom('webhook_attempts as a')
    .innerJoin('outbox_events as e', 'e.id', 'a.event_id')
    .select(ATTEMPT_COLUMNS)
    .where('a.partner_id', '=', scope.partnerId)
    .where('a.environment', '=', scope.environment)
    .orderBy('a.id', 'desc')
    .limit(filter.limit + 1);
  if (filter.beforeId !== undefined) query = query.where('a.id', '<', filter.beforeId);
  if (filter.eventId !== undefined) query = query.where('a.event_id', '=', filter.eventId);
  return query.execute();
}
export type AttemptListRow = Awaited<ReturnType<typeof listAttempts>>[number];

export function findAttempt(db: Kysely<Database>, scope: Scope, attemptId: string) {
  return db
    .selectFrom('webhook_attempts as a')
    .innerJoin('outbox_events as e', 'e.id', 'a.event_id')
    .select(ATTEMPT_COLUMNS)
    .where('a.partner_id', '=', scope.partnerId)
    .where('a.environment', '=', scope.environment)
    .where('a.id', '=', attemptId)
    .executeTakeFirst();
}

/**
 * Housekeeping: settled events (the events API's resources) and their attempts are kept 30 days. A
 * pending one (a redelivery being sent) is left to its attempt and goes once it has settled.
 */
export async function purgeOldEvents(db: Kysely<Database>, before: number): Promise<void> {
  await db
    .deleteFrom('outbox_events')
    .where('created_at', '<', before)
    // A literal, as in the partial index that serves this (2026-11-29-07): a parameter would not
    // prove the index's predicate to a generic plan.
    .where('status', '<>', sql.lit('pending'))
    .execute();
}

/**
 * Keyset page of a scope's events, newest first, narrowed by type, delivery status and creation time:
 * off the (partner, environment, id) index, or with a type or a status their own (…, type, id) and
 * (…, status, id); a time window is read along the id order.
 */
export function listEvents(
  db: Kysely<Database>,
  scope: Scope,
  filter: {
    beforeId?: string;
    type?: string;
    deliveryStatus?: EventRow['status'];
    createdFrom?: number;
    createdTo?: number;
    limit: number;
  },
): Promise<EventRow[]> {
  let query = db
    .selectFrom('outbox_events')
    .selectAll()
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .orderBy('id', 'desc')
    .limit(filter.limit + 1);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  if (filter.type !== undefined) query = query.where('type', '=', knownValue(filter.type));
  if (filter.deliveryStatus !== undefined)
    query = query.where('status', '=', knownValue(filter.deliveryStatus));
  if (filter.createdFrom !== undefined) query = query.where('created_at', '>=', filter.createdFrom);
  if (filter.createdTo !== undefined) query = query.where('created_at', '<=', filter.createdTo);
  return query.execute();
}

/**
 * Makes the event due again now, whatever its delivery status: the worker sends it once more with
 * the same webhook-id (and retries it while its 24 hours last). An event being delivered right now
 * is left to that attempt. False when the event is not the scope's.
 */
export async function requeueEvent(db: Kysely<Database>, scope: Scope, eventId: string, now: number) {
  return db
    .updateTable('outbox_events')
    .set({ status: 'pending', next_attempt_at: now })
    .where('id', '=', eventId)
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .returningAll()
    .executeTakeFirst();
}

/** An automatic delivery succeeded: the endpoint's failing episode, if any, is over. */
export async function endFailingEpisode(db: Kysely<Database>, scope: Scope): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ failing_since: null, failure_notified_at: null })
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .where('failing_since', 'is not', null)
    .execute();
}

/**
 * An automatic delivery failed at `at`: starts the endpoint's failing episode unless one is running.
 * Then claims the episode's one notice when it has lasted `noticeAfterMs`: a conditional UPDATE, so
 * of concurrent failures only one gets the row back; the endpoint when this call claimed the notice.
 */
export async function failAndClaimNotice(
  db: Kysely<Database>,
  scope: Scope,
  at: number,
  noticeAfterMs: number,
): Promise<Pick<EndpointRow, 'url' | 'failing_since'> | undefined> {
  await db
    .updateTable('webhook_endpoints')
    .set({ failing_since: at })
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .where('failing_since', 'is', null)
    .execute();
  return db
    .updateTable('webhook_endpoints')
    .set({ failure_notified_at: at })
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .where('failing_since', '<=', at - noticeAfterMs)
    .where('failure_notified_at', 'is', null)
    .returning(['url', 'failing_since'])
    .executeTakeFirst();
}

/**
 * The pending events, counted up to `cap`, and the earliest due time among them: two walks of the
 * (status, next_attempt_at) index, the count bounded, whatever the size of the outbox.
 */
export async function backlog(db: Kysely<Database>, cap: number) {
  const [counted, earliest] = await Promise.all([
    db
      .selectFrom((eb) =>
        eb.selectFrom('outbox_events').select('id').where('status', '=', 'pending').limit(cap).as('pending'),
      )
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('outbox_events')
      .select((eb) => eb.fn.min('next_attempt_at').as('due'))
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow(),
  ]);
  return { pending: Number(counted.count), earliestDue: earliest.due === null ? null : Number(earliest.due) };
}
