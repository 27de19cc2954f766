import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import { systemActor } from '../../platform/audit/audit.repository.js';
import type { AuditedWrite } from '../../platform/audit/audited-write.js';
import type { Clock } from '../../platform/clock.js';
import type { KeyRing } from '../../platform/crypto/keys.js';
import { newId } from '../../platform/crypto/tokens.js';
import type { Database } from '../../platform/db/schema.js';
import type { Environment } from '../../platform/environment.js';
import { NO_ENDPOINT } from '../../platform/events/outbox.repository.js';
import { BACKLOG_CAP, type Backlog, type DeliveryOutcome } from '../../platform/metrics/metrics.js';
import { createPollingWorker, type Pass } from '../../platform/worker/polling-worker.js';
import type { Notifications } from '../notifications/notifications.service.js';
import { deliver } from './delivery.js';
import type { AddressPolicy } from './ssrf.js';
import * as repo from './webhooks.repository.js';

/** Retries stop this long after the event was created. */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** How long an endpoint's automatic deliveries fail, none succeeding, before its partner is e-mailed. */
export const FAILING_NOTICE_AFTER_MS = 60 * 60 * 1000;
/** Deliveries in flight per instance. */
const MAX_IN_FLIGHT = 20;

export interface WebhookWorkerOptions {
  db: Kysely<Database>;
  write: AuditedWrite;
  clock: Clock;
  keys: KeyRing;
  log: Logger;
  pollMs: number;
  timeoutMs: number;
  retryBaseMs: number;
  policyFor(environment: Environment): AddressPolicy;
  notify: Notifications;
  /** Counts each automatic attempt's outcome (metrics). */
  onDelivery(outcome: DeliveryOutcome): void;
}

/** The partner and environment whose events go out in order, one at a time. */
const scopeKey = (row: { partner_id: number; environment: Environment }): string =>
  `${row.partner_id}:${row.environment}`;

/** Delay before attempt n+1 after n failed attempts: base, 2·base, 4·base, … */
export const backoffMs = (base: number, failedAttempts: number): number =>
  base * 2 ** Math.min(Math.max(failedAttempts - 1, 0), 30);

/**
 * Drains the outbox: leases due events, delivers them, and records each attempt. A crash between
 * commit and delivery loses nothing: the event stays pending and its lease expires, so this or
 * another instance delivers it (at least once, with the same webhook-id).
 */
export function createWebhookWorker(options: WebhookWorkerOptions) {
  const { db, write, clock, log } = options;
  /**
   * The events this instance is delivering, by id, with their partner's scope. The lease keeps other
   * instances off them; this keeps this instance off them even when a delivery and its settling
   * outlive the lease (a stalled process, a slow database): a pass never leases one of them again,
   * nor another event of the same scope, so an event is not sent twice by the same instance.
   */
  const delivering = new Map<string, string>();

  /**
   * An endpoint's failing episode runs from an automatic delivery's failure to the next success; once
   * it has lasted FAILING_NOTICE_AFTER_MS, the next failure e-mails the partner, once an episode
   * (docs/decisions.md, "Notifications"). Manual resends and test events do not count.
   */
  async function trackEpisode(
    trx: Transaction<Database>,
    event: repo.EventRow,
    outcome: { succeeded: boolean; error: string | null },
    at: number,
  ): Promise<void> {
    const scope = { partnerId: event.partner_id, environment: event.environment };
    if (outcome.succeeded) {
      await repo.endFailingEpisode(trx, scope);
      return;
    }
    const claimed = await repo.failAndClaimNotice(trx, scope, at, FAILING_NOTICE_AFTER_MS);
    if (claimed?.failing_since == null) return;
    await options.notify.webhookEndpointFailing(
      trx,
      {
        partnerId: scope.partnerId,
        environment: scope.environment,
        url: claimed.url,
        failingSince: Number(claimed.failing_since),
        lastError: outcome.error,
      },
      at,
    );
  }

  async function settle(event: repo.EventRow, token: string, endpoint: repo.EndpointRow): Promise<void> {
    const outcome = await deliver(event, endpoint, {
      keys: options.keys,
      timeoutMs: options.timeoutMs,
      policy: options.policyFor(event.environment),
      now: clock.now(),
    });
    const finishedAt = clock.now();
    const deadline = event.created_at + RETRY_WINDOW_MS;
    const givesUp = !outcome.succeeded && finishedAt >= deadline;
    const attempt = await write({ actor: systemActor, meta: null, now: finishedAt }, async ({ trx }) => {
      const number = await repo.nextAttemptNumber(trx, event.id);
      await repo.settleEvent(
        trx,
        { id: event.id, token },
        {
          status: outcome.succeeded ? 'delivered' : givesUp ? 'failed' : 'pending',
          // The last retry lands on the deadline itself, so retries cover the whole 24 hours.
          ...(outcome.succeeded || givesUp
            ? {}
            : { nextAttemptAt: Math.min(finishedAt + backoffMs(options.retryBaseMs, number), deadline) }),
          deliveredAt: outcome.succeeded ? finishedAt : null,
          lastError: outcome.error,
        },
      );
      await repo.insertAttempt(trx, {
        id: newId(),
        event_id: event.id,
        partner_id: event.partner_id,
        environment: event.environment,
        attempt: number,
        trigger: 'automatic',
        url: outcome.url,
        succeeded: outcome.succeeded ? 1 : 0,
        status_code: outcome.statusCode,
        latency_ms: outcome.latencyMs,
        error: outcome.error,
        response_body_excerpt: outcome.responseBodyExcerpt,
        created_at: finishedAt,
      });
      await trackEpisode(trx, event, outcome, finishedAt);
      return number;
    });
    options.onDelivery(outcome.succeeded ? 'delivered' : givesUp ? 'gave_up' : 'failed');
    if (!outcome.succeeded) {
      log.info(
        { event_id: event.id, attempt, error: outcome.error, cause: outcome.cause, gave_up: givesUp },
        'webhook delivery failed',
      );
    }
  }

  /**
   * One pass: picks, per partner and environment with nothing in flight, its oldest due event,
   * leases those (as many as there is room for) and starts delivering them. Deliveries run in the
   * background, so one partner's slow endpoint does not hold up the others. Events are written
   * skipped when their environment has no endpoint (outboxRows); a pending event whose endpoint was
   * removed since is settled as skipped here, all of them in one statement.
   */
  async function claim(room: number): Promise<Pass> {
    const now = clock.now();
    // First every due event that has nowhere to go any more, whatever its partner: one statement a pass.
    const skipped = await repo.skipWithoutEndpoint(db, now, NO_ENDPOINT);
    const [candidates, leased] = await Promise.all([
      repo.dueEvents(db, now, room * 5),
      repo.leasedScopes(db, now),
    ]);
    const busy = new Set(leased.map(scopeKey));
    for (const scope of delivering.values()) busy.add(scope);
    const oldest = new Map<string, (typeof candidates)[number]>();
    for (const candidate of candidates) {
      const scope = scopeKey(candidate);
      const current = oldest.get(scope);
      const older =
        !current ||
        candidate.created_at < current.created_at ||
        (candidate.created_at === current.created_at && candidate.id < current.id);
      if (!busy.has(scope) && older) oldest.set(scope, candidate);
    }

    // An endpoint removed since the skip leaves its events for the next pass to skip.
    const found = await repo.findEndpoints(
      db,
      [...oldest.values()].map((event) => ({ partnerId: event.partner_id, environment: event.environment })),
    );
    const endpoints = new Map(found.map((endpoint) => [scopeKey(endpoint), endpoint]));
    const token = randomUUID();
    // The lease runs from now, not from the start of the pass, which may have waited on the database.
    const leasedAt = clock.now();
    const events = await repo.leaseEvents(
      db,
      [...oldest]
        .filter(([key]) => endpoints.has(key))
        .slice(0, room)
        .map(([, event]) => event.id),
      // The lease outlives the delivery timeout comfortably; an expired lease is re-leased.
      { now, until: leasedAt + options.timeoutMs * 3, token },
    );
    return {
      jobs: events.map((event) => {
        const scope = scopeKey(event);
        delivering.set(event.id, scope);
        return {
          id: event.id,
          run: () => settle(event, token, endpoints.get(scope)!).finally(() => delivering.delete(event.id)),
        };
      }),
      settled: skipped,
    };
  }

  const worker = createPollingWorker({
    name: 'webhook worker',
    log,
    pollMs: options.pollMs,
    maxInFlight: MAX_IN_FLIGHT,
    claim,
  });

  return {
    runOnce: worker.runOnce,
    wake: worker.wake,
    start: worker.start,
    stop: worker.stop,
    halt: worker.halt,
    health: worker.health,
    /** The pending events at scrape time (metrics). */
    backlog: async (): Promise<Backlog> => {
      const { pending, earliestDue } = await repo.backlog(db, BACKLOG_CAP);
      return {
        pending,
        oldestDueAt: earliestDue !== null && earliestDue <= clock.now() ? earliestDue : null,
      };
    },
    /** Housekeeping: events (and their attempts) go after 30 days. */
    purgeSettled: () => repo.purgeOldEvents(db, clock.now() - 30 * 24 * 60 * 60 * 1000),
  };
}
