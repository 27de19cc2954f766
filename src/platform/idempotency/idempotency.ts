import { createHash } from 'node:crypto';
import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
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

/** Records the response inside the caller's transaction (see registerIdempotency). */
export type CommitResponse = (trx: Kysely<Database>, status: number, body: unknown) => Promise<void>;

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyScope: repo.IdempotencyScope | undefined;
    /** Set while this request holds an Idempotency-Key: lets a service record the response atomically. */
    commitIdempotentResponse: CommitResponse | undefined;
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
 * CONTRACT 4.4 on every POST under /services/ (routes with config.idempotent): the first response
 * to a key is stored (encrypted: it may hold a new API key or personal data) and replayed with
 * `Idempotent-Replayed: true`; the same key with another request is 422, while the first is still
 * running 409. Keys are scoped to partner and environment and kept 24 hours. Server errors (5xx) are
 * not stored, so a retry runs again.
 *
 * Account creation and credits record their response inside their own transaction (recordInTransaction),
 * so a crash or failure between commit and reply cannot lead a retry to do the write twice; onSend then
 * stores the exact bytes sent.
 */
export function registerIdempotency(
  app: FastifyInstance,
  { db, clock, keys }: { db: Kysely<Database>; clock: Clock; keys: KeyRing },
): void {
  app.decorateRequest('idempotencyScope', undefined);
  app.decorateRequest('commitIdempotentResponse', undefined);

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
      request.idempotencyScope = scope;
      request.commitIdempotentResponse = (trx, status, body) =>
        repo.completeKey(trx, scope, { status, body: encrypt(keys.encryption, JSON.stringify(body)) });
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

  addRouteHook(app, 'onSend', idempotent, (config) => async (request, reply, payload) => {
    const scope = request.idempotencyScope;
    if (!scope) return payload;
    request.idempotencyScope = undefined;
    if (reply.statusCode >= 500 || typeof payload !== 'string') {
      await repo.releaseKey(db, scope);
    } else {
      const replayBody = config.replayBody;
      const stored =
        replayBody && reply.statusCode < 300
          ? JSON.stringify(replayBody(JSON.parse(payload) as Record<string, unknown>))
          : payload;
      await repo.completeKey(db, scope, {
        status: reply.statusCode,
        body: encrypt(keys.encryption, stored),
      });
    }
    return payload;
  });
}

/**
 * The `onCommit` callback for a service write: when the request holds an Idempotency-Key, it stores
 * `status` and the envelope built from the write's result in the write's own transaction, so the write
 * and its replayable response commit together. Undefined without a key.
 */
export function recordInTransaction<T>(
  request: FastifyRequest,
  status: number,
  envelope: (result: T) => unknown,
): ((trx: Kysely<Database>, result: T) => Promise<void>) | undefined {
  const commit = request.commitIdempotentResponse;
  return commit && ((trx, result) => commit(trx, status, envelope(result)));
}

/**
 * The replayBody of an answer that shows a secret once (a new API key, a rotated webhook secret): the
 * replay answers `field: null` with `message`, so neither a replay nor the stored record holds it.
 */
export const withoutSecret =
  (field: string, message: string) =>
  (body: Record<string, unknown>): Record<string, unknown> =>
    extend(body, {
      message,
      data: extend(body['data'] as Record<string, unknown>, { [field]: null }),
    });

export const purgeExpiredIdempotencyKeys = (db: Kysely<Database>, now: number) =>
  repo.purgeExpiredKeys(db, now);
