import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { notReady } from '../errors/errors.js';
import { extend } from '../objects.js';
import type { WorkerHealth } from '../worker/polling-worker.js';
import { ErrorEnvelope, errorResponses, StringEnum, Success, success } from './schemas.js';

const Health = Success(Type.Object({ status: Type.String({ examples: ['ok'] }) }), 'OK');
/** What the server answers before routing to any operation: a request it cannot parse or take. */
const MalformedHttp = extend(ErrorEnvelope(['MALFORMED_REQUEST', 'PAYLOAD_TOO_LARGE']), {
  description: 'A malformed HTTP request (400) or an oversized URL or header section (413).',
});

const WorkerState = StringEnum(['ok', 'stopped', 'stuck', 'off'], {
  description:
    'ok: its loop passes; stopped: its loop is not running; stuck: a pass (or the wait for the next) has lasted WORKER_STUCK_AFTER_MS; off: not run by this instance (TRANSFER_WORKER=false)',
});
const Checks = Type.Object(
  {
    database: StringEnum(['ok', 'unreachable'], { description: 'a trivial query answers' }),
    migrations: StringEnum(['ok', 'pending', 'unknown'], {
      description: 'every migration of this version is applied (unknown while the database is unreachable)',
    }),
    storage: StringEnum(['ok', 'full'], {
      description:
        'full: a write was refused for a full disk (503 STORAGE_FULL) within the last 60 s and none has succeeded since',
    }),
    webhook_worker: WorkerState,
    mail_worker: WorkerState,
    transfer_worker: WorkerState,
  },
  { title: 'ReadinessChecks', description: "Each readiness check's state." },
);
type ChecksData = typeof Checks.static;
const Ready = Success(Type.Object({ status: Type.String({ examples: ['ready'] }), checks: Checks }), 'Ready');

export interface ReadinessProbes {
  ping(): Promise<void>;
  pendingMigrations(): Promise<string[]>;
  /** Whether writes are failing for a full disk (disk-health.ts). */
  storage(): 'ok' | 'full';
  /** Undefined for a worker this instance does not run. */
  workers: Record<'webhook_worker' | 'mail_worker' | 'transfer_worker', (() => WorkerHealth) | undefined>;
}

/** Probes at the root, outside the API prefix and the per-IP rate limit. */
export function registerHealthRoutes(app: FastifyInstance, probes: ReadinessProbes): void {
  const tags = ['Operations'];
  const live = async () => success('OK', { status: 'ok' });
  for (const [path, operationId, summary] of [
    ['/livez', 'getLiveness', 'The process is up'],
    ['/healthz', 'getHealth', 'The process is up (alias of /livez)'],
  ] as const) {
    app.get(
      path,
      {
        schema: {
          operationId,
          summary,
          description:
            'Liveness: 200 while the process serves HTTP, whatever its dependencies. Outside the API prefix and the rate limit.',
          tags,
          response: { 200: Health, '4xx': MalformedHttp, ...errorResponses(['INTERNAL_ERROR']) },
        },
        config: { rateLimit: false },
      },
      live,
    );
  }
  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'getReadiness',
        summary: 'The database answers, migrations are applied, the disk has room, workers pass',
        description:
          'Readiness: 200 with each check once the database answers a query, every migration of this version is applied, writes are not failing for a full disk and each worker loop of this instance is passing; else 503 SERVICE_UNAVAILABLE with Retry-After and `data.checks` naming the failing ones (take the instance out of rotation).',
        tags,
        response: {
          200: Ready,
          '4xx': MalformedHttp,
          ...errorResponses(['SERVICE_UNAVAILABLE'], {
            SERVICE_UNAVAILABLE: Type.Object({ checks: Checks }),
          }),
        },
      },
      config: { rateLimit: false },
    },
    async (request) => {
      const checks: ChecksData = {
        database: 'ok',
        migrations: 'ok',
        storage: probes.storage(),
        webhook_worker: probes.workers.webhook_worker?.() ?? 'off',
        mail_worker: probes.workers.mail_worker?.() ?? 'off',
        transfer_worker: probes.workers.transfer_worker?.() ?? 'off',
      };
      try {
        await probes.ping();
      } catch (error) {
        request.log.error({ err: error }, 'readiness check failed: database unreachable');
        checks.database = 'unreachable';
        checks.migrations = 'unknown';
      }
      if (checks.database === 'ok') {
        const pending = await probes.pendingMigrations().catch((error: unknown) => {
          request.log.error({ err: error }, 'readiness check failed: migrations not readable');
          return undefined;
        });
        checks.migrations = pending === undefined ? 'unknown' : pending.length > 0 ? 'pending' : 'ok';
        if (pending && pending.length > 0)
          request.log.error({ pending }, 'readiness: migrations not applied');
      }
      const failing = Object.entries(checks).filter(([, state]) => state !== 'ok' && state !== 'off');
      if (failing.length > 0) {
        throw notReady(`Not ready: ${failing.map(([name, state]) => `${name} ${state}`).join(', ')}.`, {
          checks,
        });
      }
      return success('OK', { status: 'ready', checks });
    },
  );
}
