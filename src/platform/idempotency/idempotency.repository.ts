import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Environment } from '../environment.js';
import type { IdempotencyKeysTable } from './idempotency.table.js';

export interface IdempotencyScope {
  partnerId: number;
  environment: Environment;
  key: string;
}

export type IdempotencyRow = Selectable<IdempotencyKeysTable>;

/** Claims the key atomically: true when this request is the first with it. */
export async function claimKey(
  db: Kysely<Database>,
  scope: IdempotencyScope,
  claim: { requestHash: string; now: number; expiresAt: number },
): Promise<boolean> {
  const row = await db
    .insertInto('idempotency_keys')
    .values({
      partner_id: scope.partnerId,
      environment: scope.environment,
      key: scope.key,
      request_hash: claim.requestHash,
      status: 'in_progress',
      response_status: null,
      response_body: null,
      created_at: claim.now,
      expires_at: claim.expiresAt,
    })
    .onConflict((conflict) => conflict.columns(['partner_id', 'environment', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Re-claims a record that expired, or that stayed in progress past `staleBefore` (its request died
 * with the process). Conditional, so of two requests taking over the same record only one wins.
 */
export async function reclaimKey(
  db: Kysely<Database>,
  scope: IdempotencyScope,
  claim: { requestHash: string; now: number; expiresAt: number; staleBefore: number },
): Promise<boolean> {
  const row = await db
    .updateTable('idempotency_keys')
    .set({
      request_hash: claim.requestHash,
      status: 'in_progress',
      response_status: null,
      response_body: null,
      created_at: claim.now,
      expires_at: claim.expiresAt,
    })
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .where('key', '=', scope.key)
    .where((eb) =>
      eb.or([
        eb('expires_at', '<=', claim.now),
        eb.and([eb('status', '=', 'in_progress'), eb('created_at', '<=', claim.staleBefore)]),
      ]),
    )
    .returning('key')
    .executeTakeFirst();
  return row !== undefined;
}

export function findKey(db: Kysely<Database>, scope: IdempotencyScope): Promise<IdempotencyRow | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .where('key', '=', scope.key)
    .executeTakeFirst();
}

export async function completeKey(
  db: Kysely<Database>,
  scope: IdempotencyScope,
  response: { status: number; body: string },
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ status: 'completed', response_status: response.status, response_body: response.body })
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .where('key', '=', scope.key)
    .execute();
}

export async function releaseKey(db: Kysely<Database>, scope: IdempotencyScope): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .where('key', '=', scope.key)
    .where('status', '=', 'in_progress')
    .execute();
}

export async function purgeExpiredKeys(db: Kysely<Database>, now: number): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
