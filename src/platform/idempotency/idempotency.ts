import { createHash } from 'node:crypto';
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { withCommitHook } from '../audit/audited-write.js';
import type { Clock } from '../clock.js';
import type { KeyRing } from '../crypto/keys.js';
import { decrypt, encrypt } from '../crypto/secret-box.js';
import type { Database } from '../db/schema.js';
import { AppError } from '../errors/errors.js';
import { addRouteHook } from '../http/route-hooks.js';
import { extend } from '../objects.js';
import * as repo from './idempotency.repository.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A record still in progress after this long belongs to a request that died with its process. */
const STALE_IN_PROGRESS_MS = 60_000;

/** An Idempotency-Key this request claimed: its answer is to be recorded under it. */
interface ClaimedKey {
  scope: repo.IdempotencyScope;
  /** Stores an answer's bytes under the key (the replay's, if the route's replayBody differs). */
  complete(db: Kysely<Database>, status: number, sent: string): Promise<void>;
  /** The answer was recorded in its write's transaction: the key needs nothing more. */
  recorded: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set while this request holds an Idempotency-Key. */
    idempotencyKey: ClaimedKey | undefined;
  }
}

/** JSON with sorted keys: the same request body always hashes the same. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Idempotency-Key on every POST under /services/ (routes with config.idempotent; docs/partner-guide.md,
 * "Idempotency"): the first response to a key is stored (encrypted: it may hold a new API key or
 * personal data) and replayed with `Idempotent-Replayed: true`; the same key with another request is
 * 422, while the first is still running 409. Keys are scoped to partner and environment and kept 24
 * hours. Server errors (5xx) are not stored, so a retry runs again.
 *
 * One path records an answer: a route answers through `answerIdempotently`, which records a success
 * in the transaction of the write that made it, the exact bytes sent (so a crash between commit and
 * reply cannot lead a retry to write twice); an answer without a write (a refusal) is recorded as it
 * is sent, since there is nothing a retry could repeat.
 */
export function registerIdempotency(
  app: FastifyInstance,
  { db, clock, keys }: { db: Kysely<Database>; clock: Clock; keys: KeyRing },
): void {
  app.decorateRequest('idempotencyKey', undefined);

  const idempotent = (config: FastifyContextConfig) => config.idempotent === true;

  // Checked before the body, so a bad key is named even when the body is invalid too.
  addRouteHook(app, 'preValidation', idempotent, () => async (request) => {
    const key = request.headers['idempotency-key'];
    if (key !== undefined && (typeof key !== 'string' || key.length < 1 || key.length > 255)) {
      throw new AppError('VALIDATION_FAILED', {
        errors: { 'idempotency-key': ['must be 1-255 characters'] },
      });
    }
  });
  addRouteHook(app, 'preHandler', idempotent, () => async (request, reply) => {
    const key = request.headers['idempotency-key'];
    if (key === undefined) return;
    const credential = request.credential;
    if (!credential || typeof key !== 'string') return;
    const scope = { partnerId: credential.partnerId, environment: credential.environment, key };
    const requestHash = createHash('sha256')
      .update(
        `${request.method} ${request.routeOptions.url} ${canonicalJson(request.params)} ${canonicalJson(request.body)}`,
      )
      .digest('base64url');
    const now = clock.now();
    const claim = { requestHash, now, expiresAt: now + IDEMPOTENCY_TTL_MS };

    if (
      (await repo.claimKey(db, scope, claim)) ||
      (await repo.reclaimKey(db, scope, extend(claim, { staleBefore: now - STALE_IN_PROGRESS_MS })))
    ) {
      const replayBody = request.routeOptions.config.replayBody;
      request.idempotencyKey = {
        scope,
        recorded: false,
        complete: (handle, status, sent) =>
          repo.completeKey(handle, scope, {
            status,
            body: encrypt(
              keys.encryption,
              replayBody && status < 300
                ? JSON.stringify(replayBody(JSON.parse(sent) as Record<string, unknown>))
                : sent,
            ),
          }),
      };
      return;
    }
    const existing = await repo.findKey(db, scope);
    if (!existing) throw new AppError('IDEMPOTENCY_IN_PROGRESS', { headers: { 'retry-after': '1' } });
    if (existing.request_hash !== requestHash) throw new AppError('IDEMPOTENCY_KEY_REUSED');
    if (
      existing.status !== 'completed' ||
      existing.response_status === null ||
      existing.response_body === null
    ) {
      throw new AppError('IDEMPOTENCY_IN_PROGRESS', { headers: { 'retry-after': '1' } });
    }
    return reply
      .code(existing.response_status)
      .header('idempotent-replayed', 'true')
      .type('application/json; charset=utf-8')
      .send(decrypt(keys.encryption, existing.response_body));
  });

  addRouteHook(app, 'onSend', idempotent, () => async (request, reply, payload) => {
    const claimed = request.idempotencyKey;
    if (!claimed || claimed.recorded) return payload;
    request.idempotencyKey = undefined;
    if (reply.statusCode >= 500 || typeof payload !== 'string') await repo.releaseKey(db, claimed.scope);
    else await claimed.complete(db, reply.statusCode, payload);
    return payload;
  });
}

/**
 * Answers an idempotent route: `run` makes the request's one audited write, and the answer
 * (`status`, `envelope` of the result, serialized by the route's response schema) is recorded under
 * the request's Idempotency-Key in that write's own transaction, then sent as those very bytes.
 * Without a key, it just answers.
 */
export async function answerIdempotently<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number | ((result: T) => number),
  run: () => Promise<T>,
  envelope: (result: T) => unknown,
): Promise<FastifyReply> {
  const statusOf = typeof status === 'number' ? () => status : status;
  const claimed = request.idempotencyKey;
  if (!claimed) {
    const result = await run();
    return reply.code(statusOf(result)).send(envelope(result));
  }
  let sent: string | undefined;
  const result = await withCommitHook(async (trx, written) => {
    // The response schema that serializes the answer is the one of its status.
    const code = statusOf(written as T);
    const bytes = String(reply.code(code).serialize(envelope(written as T)));
    await claimed.complete(trx, code, bytes);
    sent = bytes;
    claimed.recorded = true;
  }, run);
  return reply
    .code(statusOf(result))
    .type('application/json; charset=utf-8')
    .send(sent ?? envelope(result));
}

/**
 * The replayBody of an answer that shows a secret once (a new API key, a rotated webhook secret): the
 * replay answers `field: null` with `message`, so neither a replay nor the stored record holds it.
 */
export const withoutSecret =
  (field: string | readonly string[], message: string) =>
  (body: Record<string, unknown>): Record<string, unknown> =>
    extend(body, {
      message,
      data: extend(
        body['data'] as Record<string, unknown>,
        Object.fromEntries((typeof field === 'string' ? [field] : field).map((name) => [name, null])),
      ),
    });

export const purgeExpiredIdempotencyKeys = (db: Kysely<Database>, now: number) =>
  repo.purgeExpiredKeys(db, now);
