import {
  type Expression,
  type ExpressionBuilder,
  type Insertable,
  type Kysely,
  type Selectable,
  type SqlBool,
  sql,
} from 'kysely';
import { knownValue, skippingLocked } from '../../platform/db/dialect.js';
import type { Database } from '../../platform/db/schema.js';
import type { Environment } from '../../platform/environment.js';
import type { OutboxEventsTable } from '../../platform/events/outbox.table.js';
import { extend } from '../../platform/objects.js';
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

/** `locked_until` free at `now`: never leased, or the lease ran out. */
const unleasedAt =
  (now: number) =>
  (eb: ExpressionBuilder<Database, 'outbox_events'>): Expression<SqlBool> =>
    eb.or([eb('outbox_events.locked_until', 'is', null), eb('outbox_events.locked_until', '<', now)]);

/** Every column, named: SQLite's RETURNING takes no `table.*`. */
const ENDPOINT_COLUMNS = [
  'webhook_endpoints.partner_id',
  'webhook_endpoints.environment',
  'webhook_endpoints.url',
  'webhook_endpoints.secret_encrypted',
  'webhook_endpoints.previous_secret_encrypted',
  'webhook_endpoints.previous_secret_expires_at',
  'webhook_endpoints.failing_since',
  'webhook_endpoints.failure_notified_at',
  'webhook_endpoints.lane_token',
  'webhook_endpoints.lane_until',
  'webhook_endpoints.lane_served_at',
  'webhook_endpoints.created_at',
  'webhook_endpoints.updated_at',
] as const satisfies ReadonlyArray<`webhook_endpoints.${keyof EndpointRow}`>;

const EVENT_COLUMNS = [
  'outbox_events.id',
  'outbox_events.partner_id',
  'outbox_events.environment',
  'outbox_events.type',
  'outbox_events.payload',
  'outbox_events.created_at',
  'outbox_events.status',
  'outbox_events.attempts',
  'outbox_events.next_attempt_at',
  'outbox_events.locked_until',
  'outbox_events.lease_token',
  'outbox_events.delivered_at',
  'outbox_events.last_error',
] as const satisfies ReadonlyArray<`outbox_events.${keyof EventRow}`>;

/**
 * Takes up to `limit` free lanes (an endpoint whose lane no worker holds, or whose holder's time ran
 * out) that have a due, unleased event, least recently served first, for the worker holding `token`.
 * One conditional UPDATE: of instances claiming at once each lane goes to one (on PostgreSQL the
 * pick skips the rows another claim has locked). Its cost follows the number of endpoints, one probe
 * of the pending-due index each, never the number of pending events.
 */
export async function claimLanes(
  db: Kysely<Database>,
  lane: { now: number; until: number; token: string; limit: number },
): Promise<EndpointRow[]> {
  const picked = skippingLocked(
    db,
    db
      .selectFrom('webhook_endpoints as e')
      .select(['e.partner_id', 'e.environment'])
      .where((eb) => eb.or([eb('e.lane_until', 'is', null), eb('e.lane_until', '<', lane.now)]))
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('outbox_events')
            .select('outbox_events.id')
            .whereRef('outbox_events.partner_id', '=', 'e.partner_id')
            .whereRef('outbox_events.environment', '=', 'e.environment')
            // A literal, as in the partial index's predicate (a parameter would not prove it to a generic plan).
            .where('outbox_events.status', '=', sql.lit('pending'))
            .where('outbox_events.next_attempt_at', '<=', lane.now)
            .where(unleasedAt(lane.now)),
        ),
      )
      .orderBy('e.lane_served_at')
      .orderBy('e.partner_id')
      .orderBy('e.environment')
      .limit(lane.limit),
  );
  // Materialized: the pick runs once, not again for each endpoint the UPDATE looks at.
  return db
    .with(
      (cte) => cte('picked').materialized(),
      () => picked,
    )
    .updateTable('webhook_endpoints')
    .from('picked')
    .set({ lane_token: lane.token, lane_until: lane.until, lane_served_at: lane.now })
    .whereRef('webhook_endpoints.partner_id', '=', 'picked.partner_id')
    .whereRef('webhook_endpoints.environment', '=', 'picked.environment')
    .where((eb) =>
      eb.or([
        eb('webhook_endpoints.lane_until', 'is', null),
        eb('webhook_endpoints.lane_until', '<', lane.now),
      ]),
    )
    .returning(ENDPOINT_COLUMNS)
    .execute();
}

/**
 * Keeps the lane `token` holds for another while and reads the endpoint as it is now (a new URL or
 * secret applies from the next batch); undefined when the lane was lost (its time ran out and
 * another worker took it) or the endpoint was deleted.
 */
export function extendLane(
  db: Kysely<Database>,
  scope: Scope,
  lane: { token: string; until: number },
): Promise<EndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({ lane_until: lane.until })
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .where('lane_token', '=', lane.token)
    .returningAll()
    .executeTakeFirst();
}

/** Gives the lane back, so any worker may take it at once; a lane taken over since is left alone. */
export async function releaseLane(db: Kysely<Database>, scope: Scope, token: string): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ lane_token: null, lane_until: null })
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .where('lane_token', '=', token)
    .execute();
}

/**
 * Leases the scope's `limit` oldest due, unleased events (a short range of the pending-due index)
 * and numbers their next attempt, in one conditional UPDATE; the events in due order. Attempt
 * numbers are one atomic increment, so they never repeat, whoever made the attempt.
 */
export async function leaseScopeEvents(
  db: Kysely<Database>,
  scope: Scope,
  lease: {
    now: number;
    until: number;
    token: string;
    limit: number;
    exclude: readonly string[];
    laneToken: string;
  },
): Promise<EventRow[]> {
  const picked = skippingLocked(
    db,
    db
      .selectFrom('outbox_events')
      .select('outbox_events.id')
      // Only while the lane is still the caller's (not taken over, its endpoint not deleted).
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('webhook_endpoints')
            .select('webhook_endpoints.partner_id')
            .where('webhook_endpoints.partner_id', '=', scope.partnerId)
            .where('webhook_endpoints.environment', '=', scope.environment)
            .where('webhook_endpoints.lane_token', '=', lease.laneToken),
        ),
      )
      .$if(lease.exclude.length > 0, (query) => query.where('outbox_events.id', 'not in', [...lease.exclude]))
      .where('outbox_events.partner_id', '=', scope.partnerId)
      .where('outbox_events.environment', '=', scope.environment)
      .where('outbox_events.status', '=', sql.lit('pending'))
      .where('outbox_events.next_attempt_at', '<=', lease.now)
      .where(unleasedAt(lease.now))
      .orderBy('outbox_events.next_attempt_at')
      .orderBy('outbox_events.id')
      .limit(lease.limit),
  );
  // Materialized: the pick runs once, and the UPDATE finds its rows by primary key.
  const rows = await db
    .with(
      (cte) => cte('picked').materialized(),
      () => picked,
    )
    .updateTable('outbox_events')
    .from('picked')
    .set((eb) => ({
      locked_until: lease.until,
      lease_token: lease.token,
      attempts: eb('outbox_events.attempts', '+', 1),
    }))
    .whereRef('outbox_events.id', '=', 'picked.id')
    .where('outbox_events.status', '=', 'pending')
    .where(unleasedAt(lease.now))
    .returning(EVENT_COLUMNS)
    .execute();
  return rows.sort((a, b) =>
    a.next_attempt_at !== b.next_attempt_at ? a.next_attempt_at - b.next_attempt_at : a.id < b.id ? -1 : 1,
  );
}

/**
 * Skips the scope's pending, unleased events once it has no endpoint (deleted): one range of the
 * pending-due index. An event in flight is settled by its attempt and skipped at the next look.
 */
export async function skipScopeWithoutEndpoint(
  db: Kysely<Database>,
  scope: Scope,
  now: number,
  reason: string,
): Promise<number> {
  const result = await db
    .updateTable('outbox_events')
    .set({ status: 'skipped', last_error: reason })
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .where('status', '=', sql.lit('pending'))
    .where(unleasedAt(now))
    .where(({ exists, not, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_endpoints')
            .select('webhook_endpoints.partner_id')
            .where('webhook_endpoints.partner_id', '=', scope.partnerId)
            .where('webhook_endpoints.environment', '=', scope.environment),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
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
  row: Insertable<WebhookAttemptsTable> | Insertable<WebhookAttemptsTable>[],
): Promise<void> {
  if (Array.isArray(row) && row.length === 0) return;
  await db.insertInto('webhook_attempts').values(row).execute();
}

/**
 * Writes the outcome of an attempt written before its request was sent; its `created_at` becomes
 * the outcome's time, as for an attempt recorded in one go.
 */
export async function completeAttempt(
  db: Kysely<Database>,
  id: string,
  outcome: Pick<
    WebhookAttemptsTable,
    'url' | 'succeeded' | 'status_code' | 'latency_ms' | 'error' | 'response_body_excerpt' | 'created_at'
  >,
): Promise<void> {
  await db
    .updateTable('webhook_attempts')
    .set(extend(outcome, { in_flight_until: null }))
    .where('id', '=', id)
    .execute();
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
  'a.in_flight_until',
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
