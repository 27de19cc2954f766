import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { actorOf, type RequestMeta } from '../../platform/audit/audit.repository.js';
import type { AuditedWrite } from '../../platform/audit/audited-write.js';
import type { ApiKeyCredential, SessionCredential } from '../../platform/auth/credentials.js';
import { type Clock, toIso } from '../../platform/clock.js';
import type { KeyRing } from '../../platform/crypto/keys.js';
import { safeEqual } from '../../platform/crypto/secret-box.js';
import { API_KEY_FORMAT, newId, randomToken, sha256 } from '../../platform/crypto/tokens.js';
import type { Database } from '../../platform/db/schema.js';
import type { Environment } from '../../platform/environment.js';
import { AppError } from '../../platform/errors/errors.js';
import { extend } from '../../platform/objects.js';
import { keysetCursor } from '../../platform/pagination/cursor.js';
import * as repo from './api-keys.repository.js';

const LOOKUP_PREFIX_LENGTH = 12;
const TOUCH_INTERVAL_MS = 60_000;
const VERIFIED_TTL_MS = 60_000;
const VERIFIED_MAX = 5_000;

export type ApiKeysService = ReturnType<typeof createApiKeysService>;

export function createApiKeysService({
  db,
  write,
  clock,
  keys,
  log,
}: {
  db: Kysely<Database>;
  write: AuditedWrite;
  clock: Clock;
  keys: KeyRing;
  log: Logger;
}) {
  const lastTouched = new Map<string, number>();

  function view(row: repo.ApiKeyView) {
    return {
      id: row.id,
      name: row.name,
      environment: row.environment,
      last4: row.last4,
      status: row.revoked_at === null ? ('active' as const) : ('revoked' as const),
      created_at: toIso(row.created_at),
      last_used_at: row.last_used_at === null ? null : toIso(row.last_used_at),
      revoked_at: row.revoked_at === null ? null : toIso(row.revoked_at),
      created_by:
        row.created_by_user_id === null
          ? null
          : { id: row.created_by_user_id, name: row.created_by_name ?? '' },
    };
  }

  async function create(
    session: SessionCredential,
    input: { name: string; environment: Environment },
    meta: RequestMeta,
  ) {
    if (input.environment === 'live') {
      const status = await repo.onboardingStatusOf(db, session.partnerId);
      if (status === 'suspended') throw new AppError('PARTNER_SUSPENDED');
      if (status !== 'active') {
        throw new AppError('ONBOARDING_NOT_APPROVED', {
          message: 'Live API keys need an approved (active) application.',
        });
      }
    }
    // 72 random bits of lookup prefix: a collision is astronomically rare, but a retry costs nothing.
    return write(
      { actor: actorOf(session), meta, onUniqueViolation: () => undefined, attempts: 3 },
      async ({ trx, now, audit }) => {
        const secret = randomToken(32);
        const key = `sk_${input.environment}_${secret}`;
        const id = newId();
        await repo.insertApiKey(trx, {
          id,
          partner_id: session.partnerId,
          name: input.name,
          environment: input.environment,
          lookup_prefix: secret.slice(0, LOOKUP_PREFIX_LENGTH),
          key_hash: sha256(key),
          last4: key.slice(-4),
          created_at: now,
          last_used_at: null,
          revoked_at: null,
          created_by_user_id: session.userId,
        });
        audit({
          action: 'api_key.created',
          targetType: 'api_key',
          targetId: id,
          metadata: { name: input.name, environment: input.environment, last4: key.slice(-4) },
        });
        return {
          id,
          name: input.name,
          environment: input.environment,
          key,
          last4: key.slice(-4),
          created_at: toIso(now),
        };
      },
    );
  }

  async function list(partnerId: number, filter: { cursor?: string; limit: number }) {
    const cursor = keysetCursor(keys.cursor, 'api_keys', partnerId, 'string');
    const beforeId = cursor.decode(filter.cursor);
    const rows = await repo.listApiKeys(db, partnerId, {
      limit: filter.limit,
      ...(beforeId ? { beforeId } : {}),
    });
    const page = cursor.page(rows, filter.limit, (row) => row.id);
    return { items: page.items.map(view), next_cursor: page.next_cursor };
  }

  /** Revoking twice is harmless: the answer is the key as revoked. */
  async function revoke(session: SessionCredential, id: string, meta: RequestMeta) {
    return write({ actor: actorOf(session), meta }, async ({ trx, now, audit }) => {
      if (await repo.revokeApiKey(trx, session.partnerId, id, now)) {
        audit({ action: 'api_key.revoked', targetType: 'api_key', targetId: id });
      }
      // Other instances keep theirs: the writes that take a cached key check it themselves.
      for (const [hash, { credential }] of verified) if (credential.apiKeyId === id) verified.delete(hash);
      const row = await repo.findApiKey(trx, session.partnerId, id);
      if (!row) throw new AppError('NOT_FOUND');
      return view(row);
    });
  }

  /**
   * Keys that passed a lookup for a route whose write checks the key again in its own statement
   * (ApiKeyCredential.cached) in the last minute, by their SHA-256: that route takes the credential
   * from here and saves a round trip; every other route looks the key up. The oldest entry goes first
   * beyond the bound.
   */
  const verified = new Map<
    string,
    { credential: ApiKeyCredential; lastUsedAt: number | null; until: number }
  >();

  function remember(hash: string, credential: ApiKeyCredential, lastUsedAt: number | null, now: number) {
    verified.delete(hash);
    verified.set(hash, {
      credential: extend(credential, { cached: true }),
      lastUsedAt,
      until: now + VERIFIED_TTL_MS,
    });
    if (verified.size > VERIFIED_MAX) verified.delete(verified.keys().next().value!);
  }

  /** last_used_at is kept to the minute, so that authentication does not write on every request. */
  function touch(id: string, lastUsedAt: number | null, now: number) {
    if (now - (lastTouched.get(id) ?? lastUsedAt ?? 0) < TOUCH_INTERVAL_MS) return;
    lastTouched.set(id, now);
    repo
      .touchApiKey(db, id, now)
      .catch((error: unknown) => log.warn({ err: error }, 'could not record API key use'));
  }

  /**
   * Resolves a presented key; unknown, malformed and revoked keys are all just UNAUTHENTICATED. With
   * `cached`, a key verified in the last minute is not looked up again: only for a write that checks
   * it itself.
   */
  async function authenticate(key: string, options?: { cached: boolean }): Promise<ApiKeyCredential> {
    const match = API_KEY_FORMAT.exec(key);
    if (!match) throw new AppError('UNAUTHENTICATED');
    const hash = sha256(key);
    const now = clock.now();
    if (options?.cached) {
      const hit = verified.get(hash);
      if (hit && hit.until > now) {
        touch(hit.credential.apiKeyId, hit.lastUsedAt, now);
        return hit.credential;
      }
    }
    const row = await repo.findApiKeyByPrefix(db, match[2]!.slice(0, LOOKUP_PREFIX_LENGTH));
    if (!row || row.revoked_at !== null || !safeEqual(row.key_hash, hash) || row.environment !== match[1]) {
      throw new AppError('UNAUTHENTICATED');
    }
    if (row.environment === 'live' && row.onboarding_status === 'suspended')
      throw new AppError('PARTNER_SUSPENDED');
    if (row.environment === 'live' && row.onboarding_status !== 'active')
      throw new AppError('ONBOARDING_NOT_APPROVED');
    touch(row.id, row.last_used_at, now);
    const credential: ApiKeyCredential = {
      kind: 'api_key',
      apiKeyId: row.id,
      partnerId: row.partner_id,
      environment: row.environment,
      businessName: row.business_name,
      cached: false,
    };
    // Kept only where a route can take it from the cache: the others' lookups need not fill it.
    if (options?.cached) remember(hash, credential, row.last_used_at, now);
    return credential;
  }

  return { create, list, revoke, authenticate };
}
