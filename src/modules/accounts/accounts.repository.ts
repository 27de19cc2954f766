import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import { containsText } from '../../platform/db/dialect.js';
import { prepare } from '../../platform/db/prepared.js';
import type { Database } from '../../platform/db/schema.js';
import type { Environment } from '../../platform/environment.js';
import type { PartnersTable } from '../partners/partners.table.js';
import type { CodePurpose, SessionsTable } from './accounts.table.js';

export type PartnerRow = Selectable<PartnersTable>;

export const OTP_MAX_ATTEMPTS = 5;

export async function insertPartner(db: Kysely<Database>, row: Insertable<PartnersTable>): Promise<number> {
  const { id } = await db.insertInto('partners').values(row).returning('id').executeTakeFirstOrThrow();
  return id;
}

export function findPartnerByEmail(db: Kysely<Database>, email: string): Promise<PartnerRow | undefined> {
  return db.selectFrom('partners').selectAll().where('email', '=', email).executeTakeFirst();
}

export function findPartnerById(db: Kysely<Database>, id: number): Promise<PartnerRow | undefined> {
  return db.selectFrom('partners').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Sets verified_at once; false when the account was already verified. */
export async function markVerified(db: Kysely<Database>, partnerId: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('partners')
    .set({ verified_at: now, updated_at: now })
    .where('id', '=', partnerId)
    .where('verified_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** A new code replaces the previous one of the address and purpose, and resets its attempt counter. */
export async function replaceCode(
  db: Kysely<Database>,
  row: { email: string; purpose: CodePurpose; codeHash: string; expiresAt: number; now: number },
): Promise<void> {
  const values = { code_hash: row.codeHash, attempts: 0, expires_at: row.expiresAt, created_at: row.now };
  await db
    .insertInto('one_time_codes')
    .values({ email: row.email, purpose: row.purpose, ...values })
    .onConflict((conflict) => conflict.columns(['email', 'purpose']).doUpdateSet(values))
    .execute();
}

/**
 * Gives an address without a code one that matches nothing, with a code's lifetime: guesses against
 * an unknown address are then counted, and die, exactly like guesses against a registered one.
 */
export async function ensureCode(
  db: Kysely<Database>,
  row: { email: string; purpose: CodePurpose; codeHash: string; expiresAt: number; now: number },
): Promise<void> {
  await db
    .insertInto('one_time_codes')
    .values({
      email: row.email,
      purpose: row.purpose,
      code_hash: row.codeHash,
      attempts: 0,
      expires_at: row.expiresAt,
      created_at: row.now,
    })
    .onConflict((conflict) => conflict.columns(['email', 'purpose']).doNothing())
    .execute();
}

export function findCode(db: Kysely<Database>, email: string, purpose: CodePurpose) {
  return db
    .selectFrom('one_time_codes')
    .selectAll()
    .where('email', '=', email)
    .where('purpose', '=', purpose)
    .executeTakeFirst();
}

/**
 * Records a wrong guess: one conditional UPDATE both compares and counts, so however many guesses
 * race, no more than OTP_MAX_ATTEMPTS wrong ones are ever evaluated against a live code. Returns
 * false when the guess was not counted as wrong: it matched, or the code is dead, expired or gone.
 */
export async function countWrongGuess(
  db: Kysely<Database>,
  code: { email: string; purpose: CodePurpose },
  guessHash: string,
  now: number,
): Promise<boolean> {
  const row = await db
    .updateTable('one_time_codes')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('email', '=', code.email)
    .where('purpose', '=', code.purpose)
    .where('code_hash', '!=', guessHash)
    .where('attempts', '<', OTP_MAX_ATTEMPTS)
    .where('expires_at', '>', now)
    .returning('attempts')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Consumes the code if the guess is it and it is still live: exactly one of several racing
 * requests with the right code deletes the row.
 */
export async function consumeCode(
  db: Kysely<Database>,
  code: { email: string; purpose: CodePurpose },
  guessHash: string,
  now: number,
): Promise<boolean> {
  const row = await db
    .deleteFrom('one_time_codes')
    .where('email', '=', code.email)
    .where('purpose', '=', code.purpose)
    .where('code_hash', '=', guessHash)
    .where('attempts', '<', OTP_MAX_ATTEMPTS)
    .where('expires_at', '>', now)
    .returning('email')
    .executeTakeFirst();
  return row !== undefined;
}

/** Notes that an unverified account was sent a code (it is deleted 24 hours after the last one). */
export async function touchLastCode(db: Kysely<Database>, partnerId: number, now: number): Promise<void> {
  await db.updateTable('partners').set({ last_code_at: now }).where('id', '=', partnerId).execute();
}

/**
 * A password reset: the new hash, and the e-mail proven (an unverified account becomes verified).
 * updated_at stays: it dates the partner's business record, and the review queue reads it as the
 * submission time of an application under review (onboarding.views.ts, waiting_since).
 */
export async function resetPassword(
  db: Kysely<Database>,
  user: { id: string; partnerId: number },
  passwordHash: string,
  now: number,
): Promise<void> {
  await db
    .updateTable('partner_users')
    .set({ password_hash: passwordHash, updated_at: now })
    .where('id', '=', user.id)
    .execute();
  await db
    .updateTable('partners')
    .set((eb) => ({ verified_at: eb.fn.coalesce('verified_at', eb.val(now)) }))
    .where('id', '=', user.partnerId)
    .execute();
}

/** Ends every session of one dashboard user (a password reset, a removal). */
export async function deleteSessionsOfUser(db: Kysely<Database>, userId: string): Promise<number> {
  const result = await db.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function insertSession(db: Kysely<Database>, row: Insertable<SessionsTable>): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

const sessionByTokenHash = prepare(
  (db, tokenHash: string) =>
    db
      .selectFrom('sessions')
      .innerJoin('partners', 'partners.id', 'sessions.partner_id')
      .innerJoin('partner_users', 'partner_users.id', 'sessions.user_id')
      .select([
        'sessions.id',
        'sessions.partner_id',
        'sessions.environment',
        'sessions.expires_at',
        'sessions.second_factor',
        'partners.onboarding_status',
        'partners.business_name',
        'partners.second_factor_policy',
        'partner_users.id as user_id',
        'partner_users.name as user_name',
        'partner_users.role as user_role',
      ])
      .where('sessions.token_hash', '=', tokenHash)
      .where('partner_users.removed_at', 'is', null),
  1,
);

/** The session and what authorization needs of its partner, in one indexed lookup (every request). */
export async function findSessionByTokenHash(db: Kysely<Database>, tokenHash: string) {
  return (await sessionByTokenHash(db, tokenHash))[0];
}

export async function deleteSession(db: Kysely<Database>, sessionId: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', sessionId).execute();
}

export async function updateSessionEnvironment(
  db: Kysely<Database>,
  sessionId: string,
  environment: Environment,
): Promise<void> {
  await db.updateTable('sessions').set({ environment }).where('id', '=', sessionId).execute();
}

/**
 * Numbers this login attempt within the e-mail's window with one atomic upsert: however many
 * attempts race, each gets its own number, so exactly the first `limit` are checked. A window older
 * than `windowMs` starts over at 1.
 */
export async function reserveLoginAttempt(
  db: Kysely<Database>,
  email: string,
  now: number,
  windowMs: number,
): Promise<{ attempt: number; windowStartedAt: number }> {
  const expired = sql<boolean>`login_attempts.window_started_at <= ${now - windowMs}`;
  const row = await db
    .insertInto('login_attempts')
    .values({ email, window_started_at: now, attempts: 1 })
    .onConflict((conflict) =>
      conflict.column('email').doUpdateSet({
        attempts: sql<number>`case when ${expired} then 1 else login_attempts.attempts + 1 end`,
        window_started_at: sql<number>`case when ${expired} then ${now} else login_attempts.window_started_at end`,
      }),
    )
    .returning(['attempts', 'window_started_at'])
    .executeTakeFirstOrThrow();
  return { attempt: row.attempts, windowStartedAt: row.window_started_at };
}

/** Gives an attempt back (the right password on an unverified account is no failure). */
export async function releaseLoginAttempt(
  db: Kysely<Database>,
  email: string,
  windowStartedAt: number,
): Promise<void> {
  await db
    .updateTable('login_attempts')
    .set((eb) => ({ attempts: eb('attempts', '-', 1) }))
    .where('email', '=', email)
    .where('window_started_at', '=', windowStartedAt)
    .where('attempts', '>', 0)
    .execute();
}

export async function clearLoginAttempts(db: Kysely<Database>, email: string): Promise<void> {
  await db.deleteFrom('login_attempts').where('email', '=', email).execute();
}

/**
 * Allows an action at most once per window for a key, atomically: the upsert only moves `last_at`
 * when the window has passed, and RETURNING tells whether it did.
 */
export async function takeThrottle(
  db: Kysely<Database>,
  key: string,
  now: number,
  windowMs: number,
): Promise<{ allowed: true } | { allowed: false; retryAfterMs: number }> {
  const taken = await db
    .insertInto('throttles')
    .values({ key, last_at: now })
    .onConflict((conflict) =>
      conflict
        .column('key')
        .doUpdateSet({ last_at: now })
        .where('throttles.last_at', '<=', now - windowMs),
    )
    .returning('key')
    .executeTakeFirst();
  if (taken) return { allowed: true };
  const row = await db.selectFrom('throttles').select('last_at').where('key', '=', key).executeTakeFirst();
  return { allowed: false, retryAfterMs: Math.max(1000, (row?.last_at ?? now) + windowMs - now) };
}

/** Housekeeping: rows that no rule reads any more. */
export async function purgeExpiredAccountRows(db: Kysely<Database>, now: number): Promise<void> {
  const day = 24 * 60 * 60 * 1000;
  await db
    .deleteFrom('sessions')
    .where('expires_at', '<', now - day)
    .execute();
  await db
    .deleteFrom('login_attempts')
    .where('window_started_at', '<', now - day)
    .execute();
  await db
    .deleteFrom('throttles')
    .where('last_at', '<', now - day)
    .execute();
  await db
    .deleteFrom('one_time_codes')
    .where('expires_at', '<', now - day)
    .execute();
}

/**
 * Unverified accounts whose last code was issued before `before`: the e-mail address becomes free
 * again (someone who registered an address that is not theirs cannot hold it).
 */
export async function deleteStaleUnverified(db: Kysely<Database>, before: number): Promise<number> {
  const result = await db
    .deleteFrom('partners')
    .where('verified_at', 'is', null)
    .where('last_code_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The business name of each of these partners that exists, by id. */
export async function partnerNames(
  db: Kysely<Database>,
  ids: readonly number[],
): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('partners')
    .select(['id', 'business_name'])
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((row) => [row.id, row.business_name]));
}

/** Ids of the partners whose business name or e-mail holds `text` (lower-cased), at most `limit`. */
export async function partnerIdsMatching(
  db: Kysely<Database>,
  text: string,
  limit: number,
): Promise<number[]> {
  const rows = await db
    .selectFrom('partners')
    .select('id')
    .where((eb) =>
      eb.or([containsText(db, sql`lower(business_name)`, text), containsText(db, sql.ref('email'), text)]),
    )
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}
