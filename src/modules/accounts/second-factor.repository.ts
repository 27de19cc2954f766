import type { Insertable, Kysely, Transaction } from 'kysely';
import type { SecondFactorPolicy } from '../../platform/auth/roles.js';
import type { Database } from '../../platform/db/schema.js';
import { extend } from '../../platform/objects.js';
import type { PartnerSignInsTable } from './second-factor.table.js';

/** A dashboard user's second factor, its recovery codes and the logins waiting for a code. */

export function findFactor(db: Kysely<Database>, partnerId: number, userId: string) {
  return db
    .selectFrom('partner_users')
    .select([
      'id',
      'partner_id',
      'email',
      'name',
      'role',
      'password_hash',
      'totp_secret',
      'totp_pending_secret',
      'totp_last_step',
      'second_factor_failures',
      'second_factor_locked_at',
      'second_factor_enrolled_at',
    ])
    .where('partner_id', '=', partnerId)
    .where('id', '=', userId)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
}

export type FactorRow = NonNullable<Awaited<ReturnType<typeof findFactor>>>;

export async function countUnusedRecoveryCodes(db: Kysely<Database>, userId: string): Promise<number> {
  const row = await db
    .selectFrom('partner_user_recovery_codes')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Keeps a new pending secret for a user without a factor; false when one is on. */
export async function startEnrolment(
  db: Kysely<Database>,
  userId: string,
  encryptedSecret: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('partner_users')
    .set({ totp_pending_secret: encryptedSecret, updated_at: now })
    .where('id', '=', userId)
    .where('removed_at', 'is', null)
    .where('totp_secret', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Turns the pending secret that was checked into the factor, in one statement: a new start or a
 * confirmation racing this one changes the pending secret, and then this changes nothing.
 */
export async function confirmEnrolment(
  trx: Transaction<Database>,
  userId: string,
  pendingSecret: string,
  step: number,
  now: number,
): Promise<boolean> {
  const result = await trx
    .updateTable('partner_users')
    .set({
      totp_secret: pendingSecret,
      totp_pending_secret: null,
      totp_last_step: step,
      second_factor_failures: 0,
      second_factor_locked_at: null,
      second_factor_enrolled_at: now,
      updated_at: now,
    })
    .where('id', '=', userId)
    .where('removed_at', 'is', null)
    .where('totp_secret', 'is', null)
    .where('totp_pending_secret', '=', pendingSecret)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

const CLEARED = {
  totp_secret: null,
  totp_pending_secret: null,
  totp_last_step: null,
  second_factor_failures: 0,
  second_factor_locked_at: null,
  second_factor_enrolled_at: null,
};

/**
 * Turns a user's own factor off, only while the business does not require one for everyone (the
 * policy is read in the same statement, so a policy change racing this one wins or loses whole).
 */
export async function disableFactor(
  trx: Transaction<Database>,
  userId: string,
  now: number,
): Promise<boolean> {
  const result = await trx
    .updateTable('partner_users')
    .set(extend(CLEARED, { updated_at: now }))
    .where('id', '=', userId)
    .where('removed_at', 'is', null)
    .where('totp_secret', 'is not', null)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('partners')
          .select('partners.id')
          .whereRef('partners.id', '=', 'partner_users.partner_id')
          .where('partners.second_factor_policy', '=', 'live_money'),
      ),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** An owner or admin resets another user's factor; an admin (`mayTouchOwner` false) not an owner's. */
export async function resetFactor(
  trx: Transaction<Database>,
  partnerId: number,
  userId: string,
  mayTouchOwner: boolean,
  now: number,
): Promise<boolean> {
  let query = trx
    .updateTable('partner_users')
    .set(extend(CLEARED, { updated_at: now }))
    .where('partner_id', '=', partnerId)
    .where('id', '=', userId)
    .where('removed_at', 'is', null);
  if (!mayTouchOwner) query = query.where('role', '<>', 'owner');
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function replaceRecoveryCodes(
  trx: Transaction<Database>,
  userId: string,
  hashes: string[],
  now: number,
): Promise<void> {
  await trx.deleteFrom('partner_user_recovery_codes').where('user_id', '=', userId).execute();
  if (hashes.length === 0) return;
  await trx
    .insertInto('partner_user_recovery_codes')
    .values(hashes.map((code_hash) => ({ code_hash, user_id: userId, used_at: null, created_at: now })))
    .execute();
}

/** Uses a recovery code once: the conditional UPDATE decides a race. */
export async function useRecoveryCode(
  db: Kysely<Database>,
  userId: string,
  codeHash: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('partner_user_recovery_codes')
    .set({ used_at: now })
    .where('code_hash', '=', codeHash)
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Accepts a time step only if it is later than the last accepted one: a code works once. */
export async function takeTotpStep(db: Kysely<Database>, userId: string, step: number): Promise<boolean> {
  const result = await db
    .updateTable('partner_users')
    .set({ totp_last_step: step })
    .where('id', '=', userId)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertSignIn(
  db: Kysely<Database>,
  row: Insertable<PartnerSignInsTable>,
): Promise<void> {
  await db.insertInto('partner_sign_ins').values(row).execute();
}

export function findSignIn(db: Kysely<Database>, tokenHash: string) {
  return db.selectFrom('partner_sign_ins').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Reserves one of a pending login's code checks, the count and its bound in one statement. */
export function reserveSignInAttempt(db: Kysely<Database>, tokenHash: string, now: number, max: number) {
  return db
    .updateTable('partner_sign_ins')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('token_hash', '=', tokenHash)
    .where('attempts', '<', max)
    .where('expires_at', '>', now)
    .returning(['user_id', 'attempts'])
    .executeTakeFirst();
}

/**
 * Reserves a check of an enrolled, unlocked, current user's factor: counted as a failure until the
 * code proves right, in one statement with its bound, so no interleaving checks more than `lockAfter`
 * codes in a row.
 */
export function reserveFactorCheck(db: Kysely<Database>, userId: string, lockAfter: number) {
  return db
    .updateTable('partner_users')
    .set((eb) => ({ second_factor_failures: eb('second_factor_failures', '+', 1) }))
    .where('id', '=', userId)
    .where('removed_at', 'is', null)
    .where('totp_secret', 'is not', null)
    .where('second_factor_locked_at', 'is', null)
    .where('second_factor_failures', '<', lockAfter)
    .returning(['id', 'partner_id', 'email', 'totp_secret'])
    .executeTakeFirst();
}

export async function clearFailures(trx: Transaction<Database>, userId: string): Promise<void> {
  await trx
    .updateTable('partner_users')
    .set({ second_factor_failures: 0 })
    .where('id', '=', userId)
    .execute();
}

/** Locks a factor whose reserved checks reached `lockAfter`; true for the one caller that did. */
export async function lockSpentFactor(
  trx: Transaction<Database>,
  userId: string,
  lockAfter: number,
  now: number,
): Promise<boolean> {
  const result = await trx
    .updateTable('partner_users')
    .set({ second_factor_locked_at: now, updated_at: now })
    .where('id', '=', userId)
    .where('second_factor_failures', '>=', lockAfter)
    .where('second_factor_locked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteSignInsOf(trx: Kysely<Database>, userId: string): Promise<void> {
  await trx.deleteFrom('partner_sign_ins').where('user_id', '=', userId).execute();
}

/** Ends a pending login; true for the one caller that ended it. */
export async function deleteSignIn(db: Kysely<Database>, tokenHash: string): Promise<boolean> {
  const result = await db
    .deleteFrom('partner_sign_ins')
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function purgeExpiredSignIns(db: Kysely<Database>, now: number): Promise<void> {
  await db.deleteFrom('partner_sign_ins').where('expires_at', '<=', now).execute();
}

export async function policyOf(db: Kysely<Database>, partnerId: number): Promise<SecondFactorPolicy> {
  const row = await db
    .selectFrom('partners')
    .select('second_factor_policy')
    .where('id', '=', partnerId)
    .executeTakeFirstOrThrow();
  return row.second_factor_policy;
}

/** Sets the policy; the one before, read in the same transaction under the partner's row lock on PostgreSQL. */
export async function setPolicy(
  trx: Transaction<Database>,
  partnerId: number,
  policy: SecondFactorPolicy,
  now: number,
): Promise<void> {
  await trx
    .updateTable('partners')
    .set({ second_factor_policy: policy, updated_at: now })
    .where('id', '=', partnerId)
    .execute();
}
