import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { actorOf, type RequestMeta } from '../../platform/audit/audit.repository.js';
import type { AuditedWrite } from '../../platform/audit/audited-write.js';
import { type PartnerCredential, scopeKey, scopeOf } from '../../platform/auth/credentials.js';
import { type Clock, toIso } from '../../platform/clock.js';
import type { KeyRing } from '../../platform/crypto/keys.js';
import { decrypt, encrypt } from '../../platform/crypto/secret-box.js';
import { newWebhookSecret } from '../../platform/crypto/standard-webhooks.js';
import { newId } from '../../platform/crypto/tokens.js';
import type { Database } from '../../platform/db/schema.js';
import type { Environment } from '../../platform/environment.js';
import { AppError, validationError } from '../../platform/errors/errors.js';
import { NO_ENDPOINT, newEventId } from '../../platform/events/outbox.repository.js';
import { compileSerializer } from '../../platform/http/validation.js';
import { enforceLimit } from '../../platform/limits/limits.js';
import { extend } from '../../platform/objects.js';
import { keysetCursor } from '../../platform/pagination/cursor.js';
import { createdRange } from '../../platform/time-range.js';
import { deliver } from './delivery.js';
import type { EventsQuery } from './events.schemas.js';
import { checkDestination } from './sender.js';
import type { AddressPolicy } from './ssrf.js';
import { WebhookTestPayload } from './webhooks.events.js';
import * as repo from './webhooks.repository.js';

/** After a rotation the previous secret keeps signing for this long. */
export const PREVIOUS_SECRET_TTL_MS = 24 * 60 * 60 * 1000;

/** What a test event's data says. */
export const TEST_EVENT_MESSAGE = 'This is a test event from the BaaS partner API.';
const serializeTestData = compileSerializer(WebhookTestPayload);

/** Manual resends per partner (both environments): enough to debug a receiver, too few to scan with. */
export const MANUAL_RESEND_LIMIT = { max: 10, windowMs: 60_000 };

export interface WebhooksDeps {
  db: Kysely<Database>;
  /** Tells the delivery worker that an event became due (it also polls). */
  wakeWorker(): void;
  write: AuditedWrite;
  clock: Clock;
  keys: KeyRing;
  log: Logger;
  timeoutMs: number;
  /** The SSRF guard's policy for an environment (ssrf.ts addressPolicy). */
  policyFor(environment: Environment): AddressPolicy;
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;

export function createWebhooksService({
  db,
  write,
  clock,
  keys,
  log,
  timeoutMs,
  policyFor,
  wakeWorker,
}: WebhooksDeps) {
  function endpointView(endpoint: repo.EndpointRow) {
    const now = clock.now();
    return {
      url: endpoint.url,
      environment: endpoint.environment,
      previous_secret_expires_at:
        endpoint.previous_secret_expires_at !== null && endpoint.previous_secret_expires_at > now
          ? toIso(endpoint.previous_secret_expires_at)
          : null,
      created_at: toIso(endpoint.created_at),
      updated_at: toIso(endpoint.updated_at),
    };
  }

  async function validateUrl(url: string, environment: Environment): Promise<void> {
    const parsed = new URL(url);
    if (environment === 'live' && parsed.protocol !== 'https:') {
      throw validationError({ url: ['must be an https URL in the live environment'] });
    }
    const problem = await checkDestination(parsed, policyFor(environment));
    if (problem) throw validationError({ url: [problem] });
  }

  /** Sets the URL. The first set issues a secret; changing the URL keeps it, so receivers keep verifying. */
  async function setEndpoint(credential: PartnerCredential, url: string, meta: RequestMeta) {
    const scope = scopeOf(credential);
    await validateUrl(url, scope.environment);
    const existing = await repo.findEndpoint(db, scope);
    const secret = existing ? decrypt(keys.encryption, existing.secret_encrypted) : newWebhookSecret();
    await write({ actor: actorOf(credential), meta }, async ({ trx, now, audit }) => {
      await repo.upsertEndpoint(trx, {
        partner_id: scope.partnerId,
        environment: scope.environment,
        url,
        secret_encrypted: existing?.secret_encrypted ?? encrypt(keys.encryption, secret),
        previous_secret_encrypted: existing?.previous_secret_encrypted ?? null,
        previous_secret_expires_at: existing?.previous_secret_expires_at ?? null,
        created_at: existing?.created_at ?? now,
        updated_at: now,
      });
      audit({
        action: existing ? 'webhook.endpoint_updated' : 'webhook.endpoint_set',
        targetType: 'webhook_endpoint',
        targetId: scope.environment,
        metadata: { url },
      });
    });
    const endpoint = await repo.findEndpoint(db, scope);
    return { created: !existing, data: extend(endpointView(endpoint!), { secret }) };
  }

  async function getEndpoint(credential: PartnerCredential) {
    const endpoint = await repo.findEndpoint(db, scopeOf(credential));
    if (!endpoint)
      throw new AppError('NOT_FOUND', { message: 'No webhook endpoint is set for this environment.' });
    return endpointView(endpoint);
  }

  async function deleteEndpoint(credential: PartnerCredential, meta: RequestMeta) {
    const scope = scopeOf(credential);
    const endpoint = await getEndpoint(credential);
    await write({ actor: actorOf(credential), meta }, async ({ trx, now, audit }) => {
      await repo.deleteEndpoint(trx, scope);
      // Its backlog goes nowhere now; an event in flight is settled by its attempt, skipped after.
      await repo.skipScopeWithoutEndpoint(trx, scope, now, NO_ENDPOINT);
      audit({
        action: 'webhook.endpoint_deleted',
        targetType: 'webhook_endpoint',
        targetId: scope.environment,
      });
    });
    return endpoint;
  }

  /** New secret; the old one keeps signing beside it for 24 hours (space-separated signatures). */
  async function rotateSecret(credential: PartnerCredential, meta: RequestMeta) {
    const scope = scopeOf(credential);
    const endpoint = await repo.findEndpoint(db, scope);
    if (!endpoint)
      throw new AppError('NOT_FOUND', { message: 'No webhook endpoint is set for this environment.' });
    const secret = newWebhookSecret();
    // The answer is made in the write: an idempotent request records it in the same transaction.
    return write({ actor: actorOf(credential), meta }, async ({ trx, now, audit }) => {
      const rotated = extend(endpoint, {
        secret_encrypted: encrypt(keys.encryption, secret),
        previous_secret_encrypted: endpoint.secret_encrypted,
        previous_secret_expires_at: now + PREVIOUS_SECRET_TTL_MS,
        updated_at: now,
      });
      await repo.upsertEndpoint(trx, rotated);
      audit({
        action: 'webhook.secret_rotated',
        targetType: 'webhook_endpoint',
        targetId: scope.environment,
      });
      return extend(endpointView(rotated), { secret });
    });
  }

  /**
   * An attempt is written before its request goes out: until its outcome is recorded it is in flight,
   * and once its lease has passed with none, its outcome is unknown (the request may have reached the
   * receiver: the process or its database went away before the answer was written).
   */
  function attemptStatus(row: repo.AttemptListRow, now: number) {
    if (row.in_flight_until === null) return row.succeeded === 1 ? 'succeeded' : 'failed';
    return Number(row.in_flight_until) > now ? 'in_flight' : 'outcome_unknown';
  }

  function attemptView(row: repo.AttemptListRow) {
    return {
      id: row.id,
      event_id: row.event_id,
      event_type: row.event_type,
      attempt: row.attempt,
      trigger: row.trigger,
      url: row.url,
      status: attemptStatus(row, clock.now()),
      succeeded: row.succeeded === 1,
      status_code: row.status_code,
      latency_ms: row.latency_ms,
      error: row.error,
      response_body_excerpt: row.response_body_excerpt,
      created_at: toIso(row.created_at),
    };
  }

  async function listDeliveries(
    credential: PartnerCredential,
    filter: { cursor?: string; eventId?: string; limit: number },
  ) {
    const cursor = keysetCursor(keys.cursor, 'webhook_attempts', scopeKey(credential), 'string');
    const beforeId = cursor.decode(filter.cursor);
    const rows = await repo.listAttempts(db, scopeOf(credential), {
      limit: filter.limit,
      ...(beforeId !== undefined ? { beforeId } : {}),
      ...(filter.eventId !== undefined ? { eventId: filter.eventId } : {}),
    });
    const page = cursor.page(rows, filter.limit, (row) => row.id);
    return { items: page.items.map(attemptView), next_cursor: page.next_cursor };
  }

  /** Resends the attempt's event now, with the same webhook-id, to the current endpoint. */
  async function retryDelivery(credential: PartnerCredential, attemptId: string, meta: RequestMeta) {
    const scope = scopeOf(credential);
    const previous = await repo.findAttempt(db, scope, attemptId);
    if (!previous) throw new AppError('NOT_FOUND');
    const [event, endpoint] = await Promise.all([
      repo.findEvent(db, scope, previous.event_id),
      repo.findEndpoint(db, scope),
    ]);
    if (!event) throw new AppError('NOT_FOUND');
    if (!endpoint)
      throw new AppError('NOT_FOUND', { message: 'No webhook endpoint is set for this environment.' });
    // Counted once the request names a real attempt and endpoint, before anything is sent.
    await spendResend(credential);
    const outcome = await deliver(event, endpoint, {
      keys,
      timeoutMs,
      policy: policyFor(scope.environment),
      now: clock.now(),
    });
    const id = newId();
    if (!outcome.succeeded) {
      log.info(
        { event_id: event.id, attempt_id: id, error: outcome.error, cause: outcome.cause },
        'webhook manual retry failed',
      );
    }
    // The answer is made in the write: an idempotent request records it in the same transaction.
    return write({ actor: actorOf(credential), meta }, async ({ trx, now, audit }) => {
      await repo.insertAttempt(trx, {
        id,
        event_id: event.id,
        partner_id: scope.partnerId,
        environment: scope.environment,
        attempt: await repo.nextAttemptNumber(trx, event.id),
        trigger: 'manual',
        url: outcome.url,
        succeeded: outcome.succeeded ? 1 : 0,
        status_code: outcome.statusCode,
        latency_ms: outcome.latencyMs,
        error: outcome.error,
        response_body_excerpt: outcome.responseBodyExcerpt,
        created_at: now,
      });
      if (outcome.succeeded) await repo.markDelivered(trx, event.id, now);
      audit({
        action: 'webhook.delivery_retried',
        targetType: 'webhook_event',
        targetId: event.id,
        metadata: { succeeded: outcome.succeeded, status_code: outcome.statusCode },
      });
      return attemptView((await repo.findAttempt(trx, scope, id))!);
    });
  }

  function eventView(row: repo.EventRow) {
    return {
      id: row.id,
      type: row.type,
      environment: row.environment,
      created_at: toIso(row.created_at),
      data: JSON.parse(row.payload) as unknown,
      delivery: {
        status: row.status,
        attempts: row.attempts,
        delivered_at: row.delivered_at === null ? null : toIso(row.delivered_at),
        // Only a pending event has a next automatic attempt; one due already is being sent now.
        next_attempt_at: row.status === 'pending' ? toIso(row.next_attempt_at) : null,
      },
    };
  }

  async function listEvents(credential: PartnerCredential, query: EventsQuery) {
    const range = createdRange(query);
    // Filters not given are undefined: read as absent, and left out of the cursor's JSON.
    const filter = {
      type: query.type,
      deliveryStatus: query.delivery_status,
      createdFrom: range.from,
      createdTo: range.to,
    };
    const cursor = keysetCursor(
      keys.cursor,
      'events',
      `${scopeKey(credential)}:${JSON.stringify(filter)}`,
      'string',
    );
    const beforeId = cursor.decode(query.cursor);
    const rows = await repo.listEvents(db, scopeOf(credential), { limit: query.limit, beforeId, ...filter });
    const page = cursor.page(rows, query.limit, (row) => row.id);
    return { items: page.items.map(eventView), next_cursor: page.next_cursor };
  }

  async function getEvent(credential: PartnerCredential, eventId: string) {
    const event = await repo.findEvent(db, scopeOf(credential), eventId);
    if (!event) throw new AppError('NOT_FOUND');
    return eventView(event);
  }

  /**
   * Queues one more delivery of the event to the environment's current endpoint, with the same
   * webhook-id (docs/partner-guide.md, "Webhooks"); the worker sends it at once and it shows in the
   * delivery log. An event being delivered at this moment is left to that attempt.
   */
  async function redeliverEvent(credential: PartnerCredential, eventId: string, meta: RequestMeta) {
    const scope = scopeOf(credential);
    const [event, endpoint] = await Promise.all([
      repo.findEvent(db, scope, eventId),
      repo.findEndpoint(db, scope),
    ]);
    if (!event) throw new AppError('NOT_FOUND');
    if (!endpoint) throw new AppError('WEBHOOK_ENDPOINT_REQUIRED');
    await spendResend(credential);
    // The answer is made in the write: an idempotent request records it in the same transaction.
    const view = await write({ actor: actorOf(credential), meta }, async ({ trx, now, audit }) => {
      const requeued = await repo.requeueEvent(trx, scope, eventId, now);
      audit({
        action: 'webhook.event_redelivered',
        targetType: 'webhook_event',
        targetId: eventId,
        metadata: { type: event.type, in_flight: requeued === undefined },
      });
      return eventView(requeued ?? event);
    });
    wakeWorker();
    return view;
  }

  /**
   * Makes a `webhook.test` event and delivers it at once, signed as any event, to the environment's
   * endpoint; answers with the attempt (docs/decisions.md, "Test events"). It is stored already
   * settled, delivered or failed, so the worker never retries it: the partner sees the outcome now
   * and sends another test, or redelivers this one, when the receiver is fixed.
   */
  async function sendTestEvent(credential: PartnerCredential, meta: RequestMeta) {
    const scope = scopeOf(credential);
    const endpoint = await repo.findEndpoint(db, scope);
    if (!endpoint) throw new AppError('WEBHOOK_ENDPOINT_REQUIRED');
    await spendResend(credential);
    const createdAt = clock.now();
    const event: repo.EventRow = {
      id: newEventId(),
      partner_id: scope.partnerId,
      environment: scope.environment,
      type: 'webhook.test',
      payload: serializeTestData({ message: TEST_EVENT_MESSAGE }),
      created_at: createdAt,
      status: 'pending',
      attempts: 1,
      next_attempt_at: createdAt,
      locked_until: null,
      lease_token: null,
      delivered_at: null,
      last_error: null,
    };
    const outcome = await deliver(event, endpoint, {
      keys,
      timeoutMs,
      policy: policyFor(scope.environment),
      now: createdAt,
    });
    const id = newId();
    if (!outcome.succeeded) {
      log.info(
        { event_id: event.id, attempt_id: id, error: outcome.error, cause: outcome.cause },
        'webhook test event failed',
      );
    }
    // The answer is made in the write: an idempotent request records it in the same transaction.
    return write({ actor: actorOf(credential), meta }, async ({ trx, now, audit }) => {
      await repo.insertEvent(
        trx,
        extend(event, {
          status: outcome.succeeded ? ('delivered' as const) : ('failed' as const),
          delivered_at: outcome.succeeded ? now : null,
          last_error: outcome.error,
        }),
      );
      await repo.insertAttempt(trx, {
        id,
        event_id: event.id,
        partner_id: scope.partnerId,
        environment: scope.environment,
        attempt: 1,
        trigger: 'manual',
        url: outcome.url,
        succeeded: outcome.succeeded ? 1 : 0,
        status_code: outcome.statusCode,
        latency_ms: outcome.latencyMs,
        error: outcome.error,
        response_body_excerpt: outcome.responseBodyExcerpt,
        created_at: now,
      });
      audit({
        action: 'webhook.test_sent',
        targetType: 'webhook_event',
        targetId: event.id,
        metadata: { succeeded: outcome.succeeded, status_code: outcome.statusCode },
      });
      return attemptView((await repo.findAttempt(trx, scope, id))!);
    });
  }

  /** Manual resends (retries, redeliveries, test events) share one budget per partner: 429 past it. */
  const spendResend = (credential: PartnerCredential) =>
    enforceLimit(db, `webhook-resend:${credential.partnerId}`, clock.now(), MANUAL_RESEND_LIMIT);

  return {
    setEndpoint,
    getEndpoint,
    deleteEndpoint,
    rotateSecret,
    listDeliveries,
    retryDelivery,
    listEvents,
    getEvent,
    redeliverEvent,
    sendTestEvent,
  };
}
