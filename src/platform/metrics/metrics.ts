import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, type Metric, Registry } from 'prom-client';
import { extend } from '../objects.js';

/** Outcomes of one automatic webhook delivery attempt. */
export type DeliveryOutcome = 'delivered' | 'failed' | 'gave_up';
/** Outcomes of one credit notification from the bank connector (docs/operator-guide.md). */
export type CreditOutcome = 'credited' | 'duplicate' | 'refused';
/** The database-backed worker loops, as they appear in labels and in /readyz. */
export type WorkerName = 'webhooks' | 'mail' | 'transfers';

/** A worker's queue at one moment: items still to handle, and when the oldest due one became due. */
export interface Backlog {
  /** Capped at BACKLOG_CAP by the query that counts them. */
  pending: number;
  /** Service-clock ms of the earliest due time among pending items already due; null when none is due. */
  oldestDueAt: number | null;
}

/** The connection pool at one moment (PostgreSQL), or what SQLite's one connection can say. */
export interface PoolState {
  max: number;
  used: number;
  idle?: number;
  /** Requests waiting for a connection; unknown on SQLite. */
  waiting?: number;
}

/** Counted items a scrape reads at most per queue: a scrape never walks a large backlog (docs/operations.md). */
export const BACKLOG_CAP = 100_000;

/**
 * Transfers counted per status at a scrape: 100,000 a status cost 555 ms a scrape on PostgreSQL at a
 * million transfers (bench/transfers-by-status.ts); this many keep it to a few ms.
 */
export const TRANSFERS_CAP = 10_000;

/** OpenTelemetry's advised buckets for http.server.request.duration, in seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
/** A request no route matched: one label value, whatever its path. */
const UNMATCHED_ROUTE = '_unmatched';
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'];
/** How long one scrape's database figures are reused by concurrent or back-to-back scrapes. */
const SNAPSHOT_MS = 1_000;

export interface HttpMetrics {
  started(reply: FastifyReply): void;
  completed(request: FastifyRequest, reply: FastifyReply): void;
}

export interface MetricsSources {
  now(): number;
  pool(): PoolState;
  backlogs: Partial<Record<WorkerName, () => Promise<Backlog>>>;
  /** Transfers per status, each counted up to TRANSFERS_CAP. */
  transfersByStatus?: () => Promise<Map<string, number>>;
  onError(error: unknown): void;
}

export interface Metrics {
  /** Undefined when metrics are off (no METRICS_TOKEN): nothing is recorded. */
  registry: Registry | undefined;
  http: HttpMetrics | undefined;
  webhookDelivery(outcome: DeliveryOutcome): void;
  creditNotification(outcome: CreditOutcome): void;
  /** A request the rate limit let through unchecked because its store (Redis) failed. */
  rateLimitUnchecked(): void;
  /** Where the scrape-time figures come from; set once the app's parts exist. */
  observe(sources: MetricsSources): void;
}

const ignore = (): void => undefined;

/** Metrics off: every call is a no-op, and the HTTP path has no extra work at all. */
export const NO_METRICS: Metrics = {
  registry: undefined,
  http: undefined,
  webhookDelivery: ignore,
  creditNotification: ignore,
  rateLimitUnchecked: ignore,
  observe: ignore,
};

/**
 * The app's metrics, in a registry of its own (never prom-client's global one: tests build many
 * apps in one process). Labels carry only fixed vocabularies and route templates, never a value
 * from a request's path, an id, an account number or an e-mail address.
 */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  let sources: MetricsSources | undefined;

  const duration = durationHistogram(registry);
  let active = 0;
  const finished = (): void => {
    active--;
  };
  new Gauge({
    name: 'http_server_active_requests',
    help: 'HTTP requests being served (OpenTelemetry http.server.active_requests).',
    registers: [registry],
    collect() {
      this.set(active);
    },
  });
  /** Each series by route, method and status class, found without building a key per request. */
  const children = new Map<string, Map<string, Array<Series | undefined>>>();
  const seriesFor = (route: string, method: string, status: number): Series => {
    let byMethod = children.get(route);
    if (!byMethod) {
      byMethod = new Map();
      children.set(route, byMethod);
    }
    let byClass = byMethod.get(method);
    if (!byClass) {
      byClass = [];
      byMethod.set(method, byClass);
    }
    const index = Math.min(Math.max(Math.floor(status / 100), 1), 5) - 1;
    let series = byClass[index];
    if (!series) {
      series = duration.add({
        http_request_method: method,
        http_route: route,
        http_response_status_class: STATUS_CLASSES[index]!,
      });
      byClass[index] = series;
    }
    return series;
  };
  const http: HttpMetrics = {
    started(reply) {
      active++;
      // 'close' comes for every response, also one whose client went away before it finished.
      (reply.raw as ServerResponse).on('close', finished);
    },
    completed(request, reply) {
      const method = METHODS.has(request.method) ? request.method : '_OTHER';
      const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
      observe(seriesFor(route, method, reply.statusCode), reply.elapsedTime / 1000);
    },
  };

  const deliveries = new Counter({
    name: 'baas_webhook_deliveries_total',
    help: 'Automatic webhook delivery attempts by outcome (delivered; failed, to be retried; gave_up).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const credits = new Counter({
    name: 'baas_credit_notifications_total',
    help: "The bank connector's credit notifications by outcome (credited, duplicate, refused).",
    labelNames: ['outcome'],
    registers: [registry],
  });
  const unchecked = new Counter({
    name: 'baas_rate_limit_unchecked_total',
    help: 'Requests let through without a rate limit check because its store (Redis) could not be reached.',
    registers: [registry],
  });
  for (const outcome of ['delivered', 'failed', 'gave_up']) deliveries.labels(outcome).inc(0);
  for (const outcome of ['credited', 'duplicate', 'refused']) credits.labels(outcome).inc(0);

  new Gauge({
    name: 'db_client_connection_count',
    help: 'Database connections by state (OpenTelemetry db.client.connection.count); SQLite: its one connection, used while a transaction is open.',
    labelNames: ['db_client_connection_state'],
    registers: [registry],
    collect() {
      const pool = sources?.pool();
      if (!pool) return;
      this.set({ db_client_connection_state: 'used' }, pool.used);
      if (pool.idle !== undefined) this.set({ db_client_connection_state: 'idle' }, pool.idle);
    },
  });
  new Gauge({
    name: 'db_client_connection_max',
    help: 'The most connections the pool opens (OpenTelemetry db.client.connection.max).',
    registers: [registry],
    collect() {
      const pool = sources?.pool();
      if (pool) this.set(pool.max);
    },
  });
  new Gauge({
    name: 'db_client_connection_pending_requests',
    help: 'Requests waiting for a pooled connection (OpenTelemetry db.client.connection.pending_requests); PostgreSQL only.',
    registers: [registry],
    collect() {
      const waiting = sources?.pool().waiting;
      if (waiting !== undefined) this.set(waiting);
    },
  });

  let snapshot: { at: number; figures: Promise<Map<WorkerName, Backlog>> } | undefined;
  /** The queues' figures, read once for the gauges below and reused for SNAPSHOT_MS. */
  const backlogs = (): Promise<Map<WorkerName, Backlog>> => {
    const now = Date.now();
    if (snapshot && now - snapshot.at < SNAPSHOT_MS) return snapshot.figures;
    const entries = Object.entries(sources?.backlogs ?? {}) as Array<[WorkerName, () => Promise<Backlog>]>;
    const figures = Promise.all(
      entries.map(([worker, read]) =>
        read().then(
          (backlog): [WorkerName, Backlog] | undefined => [worker, backlog],
          (error: unknown) => {
            sources?.onError(error);
            return undefined;
          },
        ),
      ),
    ).then((read) => new Map(read.filter((entry) => entry !== undefined)));
    snapshot = { at: now, figures };
    return figures;
  };
  new Gauge({
    name: 'baas_outbox_backlog',
    help: `Items a worker still has to handle (pending webhooks, e-mails, transfers owed a step), counted up to ${BACKLOG_CAP}.`,
    labelNames: ['worker'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const [worker, backlog] of await backlogs()) this.set({ worker }, backlog.pending);
    },
  });
  new Gauge({
    name: 'baas_outbox_oldest_due_age_seconds',
    help: 'Seconds since the earliest due time of the pending items already due, per worker; 0 when none is due.',
    labelNames: ['worker'],
    registers: [registry],
    async collect() {
      this.reset();
      const now = sources?.now() ?? Date.now();
      for (const [worker, backlog] of await backlogs()) {
        const age = backlog.oldestDueAt === null ? 0 : Math.max(0, now - backlog.oldestDueAt) / 1000;
        this.set({ worker }, age);
      }
    },
  });

  let transfersSnapshot: { at: number; figures: Promise<Map<string, number> | undefined> } | undefined;
  new Gauge({
    name: 'baas_transfers',
    help: `Transfers by status, each counted up to ${TRANSFERS_CAP}.`,
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      this.reset();
      const read = sources?.transfersByStatus;
      if (!read) return;
      const now = Date.now();
      if (!transfersSnapshot || now - transfersSnapshot.at >= SNAPSHOT_MS) {
        transfersSnapshot = {
          at: now,
          figures: read().catch((error: unknown) => {
            sources?.onError(error);
            return undefined;
          }),
        };
      }
      for (const [status, count] of (await transfersSnapshot.figures) ?? []) this.set({ status }, count);
    },
  });

  return {
    registry,
    http,
    webhookDelivery: (outcome) => deliveries.labels(outcome).inc(),
    creditNotification: (outcome) => credits.labels(outcome).inc(),
    rateLimitUnchecked: () => unchecked.inc(),
    observe(given) {
      sources = given;
    },
  };
}

/** One label set of the request histogram: per-bucket counts (not cumulative), the last one +Inf. */
interface Series {
  labels: Record<string, string>;
  counts: Float64Array;
  sum: number;
  count: number;
}

function observe(series: Series, seconds: number): void {
  let bucket = 0;
  while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]!) bucket++;
  series.counts[bucket]!++;
  series.sum += seconds;
  series.count++;
}

/**
 * The request histogram, kept as plain counts and handed to the registry at a scrape in the shape of
 * prom-client's own histograms. prom-client's Histogram validates its labels and builds a new string
 * of them at every observation, even through a bound child: with it, metrics cost a business-info
 * request about 10k instructions; with this, about 3k (bench/README.md, "Metrics").
 */
function durationHistogram(registry: Registry) {
  const name = 'http_server_request_duration_seconds';
  const help = 'Duration of HTTP server requests (OpenTelemetry http.server.request.duration).';
  const all: Series[] = [];
  const bounds = [...DURATION_BUCKETS.map(String), '+Inf'];
  const metric = {
    name,
    help,
    get: async () => ({
      name,
      help,
      type: 'histogram',
      aggregator: 'sum',
      values: all.flatMap((series) => {
        let cumulative = 0;
        return [
          ...bounds.map((le, bucket) => {
            cumulative += series.counts[bucket]!;
            return { metricName: `${name}_bucket`, labels: extend(series.labels, { le }), value: cumulative };
          }),
          { metricName: `${name}_sum`, labels: series.labels, value: series.sum },
          { metricName: `${name}_count`, labels: series.labels, value: series.count },
        ];
      }),
    }),
    reset: () => {
      for (const series of all) {
        series.counts.fill(0);
        series.sum = 0;
        series.count = 0;
      }
    },
  };
  registry.registerMetric(metric as unknown as Metric);
  return {
    add(labels: Record<string, string>): Series {
      const series = { labels, counts: new Float64Array(bounds.length), sum: 0, count: 0 };
      all.push(series);
      return series;
    },
  };
}
