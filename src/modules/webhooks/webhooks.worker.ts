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
/** How often due events of environments left without an endpoint are swept to skipped (a race's leftovers). */
const SWEEP_MS = 60_000;
/** How often, at most, a busy worker looks for more lanes; a wake (new event) looks at once. */
const LANE_CLAIM_MS = 50;
/** A lane's turn: after this many events or this long it takes no new batch and is given back. */
const LANE_TURN_EVENTS = 200;
const LANE_TURN_MS = 1000;
/**
 * How often a busy lane is extended and its endpoint read again (a new URL or secret applies within
 * it); in between, each lease checks only that the lane is still this worker's.
 */
const LANE_REFRESH_MS = 1000;

export interface WebhookWorkerOptions {
  db: Kysely<Database>;
  write: AuditedWrite;
  clock: Clock;
  keys: KeyRing;
  log: Logger;
  pollMs: number;
  timeoutMs: number;
  /** Requests in flight per instance, shared between endpoints. */
  concurrency: number;
  /** Requests in flight to one endpoint (1: one at a time, in due order). */
  endpointConcurrency: number;
  retryBaseMs: number;
  policyFor(environment: Environment): AddressPolicy;
  notify: Notifications;
  /** Counts each automatic attempt's outcome (metrics). */
  onDelivery(outcome: DeliveryOutcome): void;
}

/** The partner and environment whose events go out through one endpoint. */
const scopeKey = (row: { partner_id: number; environment: Environment }): string =>
  `${row.partner_id}:${row.environment}`;

/**
 * An endpoint this instance holds the lane of: it alone sends that endpoint's events, in batches
 * of at most the endpoint's concurrency, until its turn is over or nothing is due.
 */
interface Lane {
  scope: repo.Scope;
  inFlight: number;
  sent: number;
  /** Real time the lane was taken (the turn's clock). */
  takenAt: number;
  /** No more events: the lane is given back once its last request has settled. */
  closing: boolean;
  /** The endpoint as last read, and when (real time): the lane is kept, and the row read again, each LANE_REFRESH_MS. */
  endpoint: repo.EndpointRow;
  refreshedAt: number;
}

/** Delay before attempt n+1 after n failed attempts: base, 2·base, 4·base, … */
export const backoffMs = (base: number, failedAttempts: number): number =>
  base * 2 ** Math.min(Math.max(failedAttempts - 1, 0), 30);

/**
 * Drains the outbox fairly between endpoints (docs/decisions.md, "Webhook fairness"): a pass takes
 * free lanes, least recently served first, shares the free slots among the lanes it holds, and
 * leases each lane's oldest due events; each attempt is written (in flight) in the lease's
 * transaction, before its request goes out, and completed after. A crash between the two leaves
 * the attempt in the log (its outcome unknown once the lease has passed) and the event pending: its
 * lease expires and this or another instance sends it again (at least once, same webhook-id).
 * Nothing a pass reads grows with the backlog: the lanes are the endpoints, a batch a short range
 * of the pending-due index.
 */
export function createWebhookWorker(options: WebhookWorkerOptions) {
  const { db, write, clock, log } = options;
  /** Whose lanes are whose: this instance's, for as long as it runs. */
  const laneToken = randomUUID();
  const leaseMs = options.timeoutMs * 3;
  const lanes = new Map<string, Lane>();
  /**
   * The events this instance is sending. The lease keeps other instances off them; this keeps this
   * instance off them even when a delivery and its settling outlive the lease (a stalled process, a
   * slow database), so an event is not sent twice by the same instance.
   */
  const delivering = new Set<string>();
  let nextSweepAt = 0;
  let lanesLookedAt = 0;
  let lanesWanted = true;
  let turn = 0;
  let stopping = false;

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

  /** An event leased to this instance, with its attempt written and the endpoint to send it to. */
  interface Leased {
    event: repo.EventRow;
    token: string;
    endpoint: repo.EndpointRow;
    attemptId: string;
  }

  /**
   * In the caller's transaction: keeps the lane and reads its endpoint again once LANE_REFRESH_MS
   * has passed, and leases up to `limit` of its oldest due events and writes an attempt for each, in flight until the lease ends.
   * undefined when none: nothing due, or the lane lost or its endpoint deleted.
   */
  async function lease(
    trx: Transaction<Database>,
    lane: Lane,
    limit: number,
    now: number,
  ): Promise<Leased[] | undefined> {
    const until = now + leaseMs;
    const token = randomUUID();
    if (Date.now() - lane.refreshedAt >= LANE_REFRESH_MS) {
      const endpoint = await repo.extendLane(trx, lane.scope, { token: laneToken, until });
      if (!endpoint) return undefined;
      lane.endpoint = endpoint;
      lane.refreshedAt = Date.now();
    }
    const { endpoint } = lane;
    const events = await repo.leaseScopeEvents(trx, lane.scope, {
      now,
      until,
      token,
      limit,
      exclude: [...delivering],
      laneToken,
    });
    // Nothing leased: nothing due, or the lane lost or its endpoint deleted (the lease checks both).
    if (events.length === 0) return undefined;
    const leased = events.map((event) => ({ event, token, endpoint, attemptId: newId() }));
    await repo.insertAttempt(
      trx,
      leased.map(({ event, attemptId }) => ({
        id: attemptId,
        event_id: event.id,
        partner_id: event.partner_id,
        environment: event.environment,
        attempt: event.attempts,
        trigger: 'automatic' as const,
        url: endpoint.url,
        succeeded: 0,
        status_code: null,
        latency_ms: 0,
        error: null,
        response_body_excerpt: null,
        in_flight_until: until,
        created_at: now,
      })),
    );
    return leased;
  }

  /** Whether the lane may take another event: its turn is not over and the worker is not stopping. */
  function mayGoOn(lane: Lane): boolean {
    if (!lane.closing && (lane.sent >= LANE_TURN_EVENTS || Date.now() - lane.takenAt >= LANE_TURN_MS))
      lane.closing = true;
    return !lane.closing && !stopping;
  }

  /**
   * Sends the event, then in one transaction records its outcome and, while the lane's turn lasts,
   * leases its next event (and writes that attempt): the next one to send, if any.
   */
  async function sendOne(lane: Lane, current: Leased): Promise<Leased | undefined> {
    const { event, token, endpoint, attemptId } = current;
    const outcome = await deliver(event, endpoint, {
      keys: options.keys,
      timeoutMs: options.timeoutMs,
      policy: options.policyFor(event.environment),
      now: clock.now(),
    });
    const finishedAt = clock.now();
    const deadline = event.created_at + RETRY_WINDOW_MS;
    const givesUp = !outcome.succeeded && finishedAt >= deadline;
    const next = await write({ actor: systemActor, meta: null, now: finishedAt }, async ({ trx }) => {
      await repo.settleEvent(
        trx,
        { id: event.id, token },
        {
          status: outcome.succeeded ? 'delivered' : givesUp ? 'failed' : 'pending',
          // The last retry lands on the deadline itself, so retries cover the whole 24 hours.
          ...(outcome.succeeded || givesUp
            ? {}
            : {
                nextAttemptAt: Math.min(
                  finishedAt + backoffMs(options.retryBaseMs, event.attempts),
                  deadline,
                ),
              }),
          deliveredAt: outcome.succeeded ? finishedAt : null,
          lastError: outcome.error,
        },
      );
      await repo.completeAttempt(trx, attemptId, {
        url: outcome.url,
        succeeded: outcome.succeeded ? 1 : 0,
        status_code: outcome.statusCode,
        latency_ms: outcome.latencyMs,
        error: outcome.error,
        response_body_excerpt: outcome.responseBodyExcerpt,
        created_at: finishedAt,
      });
      await trackEpisode(trx, event, outcome, finishedAt);
      // An endpoint deleted while this attempt was in flight leaves its event nowhere to go.
      if (!outcome.succeeded)
        await repo.skipScopeWithoutEndpoint(
          trx,
          { partnerId: event.partner_id, environment: event.environment },
          finishedAt,
          NO_ENDPOINT,
        );
      delivering.delete(event.id);
      return mayGoOn(lane) ? lease(trx, lane, 1, finishedAt) : [];
    }).finally(() => delivering.delete(event.id));
    options.onDelivery(outcome.succeeded ? 'delivered' : givesUp ? 'gave_up' : 'failed');
    if (!outcome.succeeded) {
      log.info(
        {
          event_id: event.id,
          attempt: event.attempts,
          error: outcome.error,
          cause: outcome.cause,
          gave_up: givesUp,
        },
        'webhook delivery failed',
      );
    }
    if (next?.[0]) {
      delivering.add(next[0].event.id);
      lane.sent += 1;
    } else lane.closing = true;
    return next?.[0];
  }

  /**
   * One of the lane's slots: sends events one after another, each settled together with the lease
   * of the next, until the lane's turn is over or nothing of it is due; the lane's last slot to end
   * gives it back (and skips what a deleted endpoint left).
   */
  async function runSlot(key: string, lane: Lane, first: Leased): Promise<void> {
    try {
      for (let current: Leased | undefined = first; current; ) current = await sendOne(lane, current);
    } finally {
      lane.inFlight -= 1;
      if (lane.inFlight === 0 && lane.closing && lanes.get(key) === lane) {
        await giveBack(key, lane);
      }
    }
  }

  /**
   * Forgets the lane and gives it back (unless another worker has taken it since), so any worker may
   * take it at once; if its endpoint was deleted meanwhile, what it left goes nowhere (skipped).
   */
  async function giveBack(key: string, lane: Lane): Promise<void> {
    lanes.delete(key);
    await repo.releaseLane(db, lane.scope, laneToken);
    await repo.skipScopeWithoutEndpoint(db, lane.scope, clock.now(), NO_ENDPOINT);
  }

  /** Leases up to `room` of the lane's events in a transaction of their own: the slots that send them. */
  async function batch(key: string, lane: Lane, room: number): Promise<Pass['jobs']> {
    const leasedAt = clock.now();
    const leased = await write({ actor: systemActor, meta: null, now: leasedAt }, ({ trx }) =>
      lease(trx, lane, room, leasedAt),
    );
    if (leased === undefined) {
      lane.closing = true;
      if (lane.inFlight === 0) await giveBack(key, lane);
      return [];
    }
    for (const { event } of leased) delivering.add(event.id);
    lane.inFlight += leased.length;
    lane.sent += leased.length;
    return leased.map((first) => ({ id: first.event.id, run: () => runSlot(key, lane, first) }));
  }

  /**
   * One pass: sweeps now and then the due events of environments left without an endpoint, takes
   * free lanes while it holds fewer than the instance's concurrency, and shares `room` among its
   * open lanes one slot at a time (starting with a different lane each pass), each lane up to the
   * endpoint concurrency; then one batch per lane.
   */
  async function claim(room: number): Promise<Pass> {
    const now = clock.now();
    let settled = 0;
    if (now >= nextSweepAt) {
      nextSweepAt = now + SWEEP_MS;
      settled = await repo.skipWithoutEndpoint(db, now, NO_ENDPOINT);
    }
    const free = options.concurrency - lanes.size;
    if (free > 0 && (lanesWanted || Date.now() - lanesLookedAt >= LANE_CLAIM_MS)) {
      lanesWanted = false;
      lanesLookedAt = Date.now();
      const taken = await repo.claimLanes(db, {
        now,
        until: clock.now() + leaseMs,
        token: laneToken,
        limit: free,
      });
      for (const endpoint of taken) {
        const key = scopeKey(endpoint);
        const held = lanes.get(key);
        if (held)
          Object.assign(held, {
            closing: false,
            sent: 0,
            takenAt: Date.now(),
            endpoint,
            refreshedAt: Date.now(),
          });
        else
          lanes.set(key, {
            scope: { partnerId: endpoint.partner_id, environment: endpoint.environment },
            inFlight: 0,
            sent: 0,
            takenAt: Date.now(),
            closing: false,
            endpoint,
            refreshedAt: Date.now(),
          });
      }
    }

    const open = [...lanes].filter(([, lane]) => !lane.closing);
    const start = open.length > 0 ? turn++ % open.length : 0;
    const ordered = [...open.slice(start), ...open.slice(0, start)];
    const shares = new Map<string, number>();
    let left = room;
    for (let given = true; left > 0 && given; ) {
      given = false;
      for (const [key, lane] of ordered) {
        const share = shares.get(key) ?? 0;
        if (left > 0 && lane.inFlight + share < options.endpointConcurrency) {
          shares.set(key, share + 1);
          left -= 1;
          given = true;
        }
      }
    }
    const batches = await Promise.all([...shares].map(([key, share]) => batch(key, lanes.get(key)!, share)));
    return { jobs: batches.flat(), settled };
  }

  const worker = createPollingWorker({
    name: 'webhook worker',
    log,
    pollMs: options.pollMs,
    maxInFlight: options.concurrency,
    claim,
  });

  return {
    runOnce: worker.runOnce,
    /** New work was committed: look for lanes now, not at the next poll. */
    wake: () => {
      lanesWanted = true;
      worker.wake();
    },
    /** Stops polling, waits for the requests in flight, and gives the lanes back for other instances. */
    async stop(): Promise<void> {
      stopping = true;
      await worker.stop();
      const held = [...lanes];
      lanes.clear();
      await Promise.allSettled(held.map(([, lane]) => repo.releaseLane(db, lane.scope, laneToken)));
    },
    /** Takes no new work (shutdown's first step): lanes end their turn after the requests in flight. */
    halt: () => {
      stopping = true;
      worker.halt();
    },
    start: () => {
      stopping = false;
      worker.start();
    },
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
