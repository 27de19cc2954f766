import {
  type Insertable,
  type Kysely,
  type Selectable,
  sql,
  type Transaction,
  type Updateable,
} from 'kysely';
import { containsText } from '../../platform/db/dialect.js';
import type { Database } from '../../platform/db/schema.js';
import type {
  OperatorInvitationsTable,
  OperatorSessionsTable,
  OperatorSignInsTable,
  OperatorsTable,
} from './operators.table.js';

export type OperatorRow = Selectable<OperatorsTable>;
export type InvitationRow = Selectable<OperatorInvitationsTable>;

export function findOperatorByEmail(db: Kysely<Database>, email: string) {
  return db.selectFrom('operators').selectAll().where('email', '=', email).executeTakeFirst();
}

export function findOperator(db: Kysely<Database>, id: string) {
  return db.selectFrom('operators').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Reads an operator under its row lock (a no-op UPDATE: SQLite has no SELECT … FOR UPDATE). */
export function lockOperator(trx: Transaction<Database>, id: string) {
  return trx
    .updateTable('operators')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function insertOperator(trx: Transaction<Database>, row: Insertable<OperatorsTable>) {
  await trx.insertInto('operators').values(row).execute();
}

/** Keyset page, oldest first. */
export function listOperators(db: Kysely<Database>, afterId: string | undefined, limit: number) {
  let query = db
    .selectFrom('operators')
    .selectAll()
    .orderBy('id')
    .limit(limit + 1);
  if (afterId !== undefined) query = query.where('id', '>', afterId);
  return query.execute();
}

/** The e-mail of each of these operators that exists, by id. */
export async function operatorEmails(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('operators')
    .select(['id', 'email'])
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((row) => [row.id, row.email]));
}

/** Every active operator's e-mail, both roles. */
export async function activeOperatorEmails(db: Kysely<Database>): Promise<string[]> {
  const rows = await db
    .selectFrom('operators')
    .select('email')
    .where('status', '=', 'active')
    .orderBy('email')
    .execute();
  return rows.map((row) => row.email);
}

/** The active admins' addresses, but for `except` (an operator id: the one who acts). */
export async function activeAdminEmails(db: Kysely<Database>, except: string | null): Promise<string[]> {
  let query = db
    .selectFrom('operators')
    .select('email')
    .where('status', '=', 'active')
    .where('role', '=', 'admin');
  if (except !== null) query = query.where('id', '!=', except);
  const rows = await query.orderBy('email').execute();
  return rows.map((row) => row.email);
}

/** The name and e-mail of each of these operators that exists, by id. */
export async function operatorNames(db: Kysely<Database>, ids: readonly string[]) {
  if (ids.length === 0) return new Map<string, { name: string; email: string }>();
  const rows = await db
    .selectFrom('operators')
    .select(['id', 'email', 'name'])
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((row) => [row.id, { name: row.name, email: row.email }]));
}

/** Ids of the operators whose name or e-mail holds `text` (lower-cased), at most `limit`. */
export async function operatorIdsMatching(db: Kysely<Database>, text: string, limit: number) {
  const rows = await db
    .selectFrom('operators')
    .select('id')
    .where((eb) =>
      eb.or([containsText(db, sql`lower(name)`, text), containsText(db, sql.ref('email'), text)]),
    )
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

export async function updateOperator(
  trx: Transaction<Database>,
  id: string,
  values: Omit<Updateable<OperatorsTable>, 'id' | 'created_at'>,
) {
  await trx.updateTable('operators').set(values).where('id', '=', id).execute();
}

/**
 * Takes a TOTP time step: only a step later than the last one accepted, in one conditional UPDATE,
 * so a code is accepted once even when two sign-ins race with it.
 */
export async function takeTotpStep(db: Kysely<Database>, id: string, step: number): Promise<boolean> {
  const result = await db
    .updateTable('operators')
    .set({ totp_last_step: step })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertInvitation(
  trx: Transaction<Database>,
  row: Insertable<OperatorInvitationsTable>,
) {
  await trx.insertInto('operator_invitations').values(row).execute();
}

export function findInvitation(db: Kysely<Database>, tokenHash: string) {
  return db
    .selectFrom('operator_invitations')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Reads an invitation under its row lock, so two acceptances of one link cannot both pass. */
export function lockInvitation(trx: Transaction<Database>, tokenHash: string) {
  return trx
    .updateTable('operator_invitations')
    .set((eb) => ({ created_at: eb.ref('created_at') }))
    .where('token_hash', '=', tokenHash)
    .returningAll()
    .executeTakeFirst();
}

export async function updateInvitation(
  db: Kysely<Database>,
  id: string,
  values: Partial<
    Pick<InvitationRow, 'pending_name' | 'pending_password_hash' | 'pending_totp_secret' | 'accepted_at'>
  >,
) {
  await db.updateTable('operator_invitations').set(values).where('id', '=', id).execute();
}

/** Ends every invitation of an address (or of an operator's reset) that is still open. */
export async function revokeOpenInvitations(
  trx: Transaction<Database>,
  match: { email: string } | { operatorId: string },
  now: number,
): Promise<void> {
  let query = trx
    .updateTable('operator_invitations')
    .set({ revoked_at: now })
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null);
  query =
    'email' in match
      ? query.where('email', '=', match.email)
      : query.where('operator_id', '=', match.operatorId);
  await query.execute();
}

/** Keyset page of invitations neither accepted, revoked nor expired, oldest first. */
export function listOpenInvitations(
  db: Kysely<Database>,
  now: number,
  afterId: string | undefined,
  limit: number,
) {
  let query = db
    .selectFrom('operator_invitations')
    .selectAll()
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('id')
    .limit(limit + 1);
  if (afterId !== undefined) query = query.where('id', '>', afterId);
  return query.execute();
}

export async function insertRecoveryCodes(
  trx: Transaction<Database>,
  operatorId: string,
  hashes: string[],
  now: number,
): Promise<void> {
  await trx.deleteFrom('operator_recovery_codes').where('operator_id', '=', operatorId).execute();
  await trx
    .insertInto('operator_recovery_codes')
    .values(
      hashes.map((code_hash) => ({ code_hash, operator_id: operatorId, used_at: null, created_at: now })),
    )
    .execute();
}

/** Uses a recovery code once: the conditional UPDATE decides a race. */
export async function useRecoveryCode(
  db: Kysely<Database>,
  operatorId: string,
  codeHash: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('operator_recovery_codes')
    .set({ used_at: now })
    .where('code_hash', '=', codeHash)
    .where('operator_id', '=', operatorId)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteRecoveryCodes(trx: Transaction<Database>, operatorId: string): Promise<void> {
  await trx.deleteFrom('operator_recovery_codes').where('operator_id', '=', operatorId).execute();
}

export async function insertSignIn(db: Kysely<Database>, row: Insertable<OperatorSignInsTable>) {
  await db.insertInto('operator_sign_ins').values(row).execute();
}

export function findSignIn(db: Kysely<Database>, tokenHash: string) {
  return db
    .selectFrom('operator_sign_ins')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/**
 * Reserves one of a pending sign-in's code checks before the code is checked: the count and its bound
 * are one statement, so however many codes are sent at once, at most `max` are ever checked.
 */
export function reserveSignInAttempt(db: Kysely<Database>, tokenHash: string, now: number, max: number) {
  return db
    .updateTable('operator_sign_ins')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('token_hash', '=', tokenHash)
    .where('attempts', '<', max)
    .where('expires_at', '>', now)
    .returning(['operator_id', 'attempts'])
    .executeTakeFirst();
}

/**
 * Reserves a second-factor check of an active, enrolled, unlocked operator: counted as a failure until
 * the code proves right (then `clearSecondFactorFailures`), in one statement with its bound, so no
 * interleaving of sign-ins checks more than `lockAfter` codes in a row.
 */
export function reserveSecondFactorCheck(db: Kysely<Database>, id: string, lockAfter: number) {
  return db
    .updateTable('operators')
    .set((eb) => ({ second_factor_failures: eb('second_factor_failures', '+', 1) }))
    .where('id', '=', id)
    .where('status', '=', 'active')
    .where('totp_secret', 'is not', null)
    .where('second_factor_locked_at', 'is', null)
    .where('second_factor_failures', '<', lockAfter)
    .returningAll()
    .executeTakeFirst();
}

/** Locks the second factor of an operator whose reserved checks reached `lockAfter`; true for the one caller that did. */
export async function lockSpentSecondFactor(
  trx: Transaction<Database>,
  id: string,
  lockAfter: number,
  now: number,
): Promise<boolean> {
  const result = await trx
    .updateTable('operators')
    .set({ second_factor_locked_at: now, updated_at: now })
    .where('id', '=', id)
    .where('second_factor_failures', '>=', lockAfter)
    .where('second_factor_locked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Ends every pending sign-in of an operator (its factor was locked or reset). */
export async function deleteSignInsOf(trx: Transaction<Database>, operatorId: string): Promise<void> {
  await trx.deleteFrom('operator_sign_ins').where('operator_id', '=', operatorId).execute();
}

/** Ends a pending sign-in; true for the one caller that ended it. */
export async function deleteSignIn(db: Kysely<Database>, tokenHash: string): Promise<boolean> {
  const result = await db
    .deleteFrom('operator_sign_ins')
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function insertSession(db: Kysely<Database>, row: Insertable<OperatorSessionsTable>) {
  await db.insertInto('operator_sessions').values(row).execute();
}

/** A session with its operator, in one lookup. */
export function findSession(db: Kysely<Database>, tokenHash: string) {
  return db
    .selectFrom('operator_sessions')
    .innerJoin('operators', 'operators.id', 'operator_sessions.operator_id')
    .select([
      'operator_sessions.id as session_id',
      'operator_sessions.last_seen_at',
      'operator_sessions.expires_at',
      'operators.id as operator_id',
      'operators.email',
      'operators.name',
      'operators.role',
      'operators.status',
    ])
    .where('operator_sessions.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** An operator's sessions still alive (neither 8 hours old nor idle), newest first. */
export function listLiveSessionsOf(
  db: Kysely<Database>,
  operatorId: string,
  now: number,
  idleMs: number,
  limit: number,
) {
  return db
    .selectFrom('operator_sessions')
    .select(['id', 'ip', 'user_agent', 'last_seen_at', 'expires_at', 'created_at'])
    .where('operator_id', '=', operatorId)
    .where('expires_at', '>', now)
    .where('last_seen_at', '>', now - idleMs)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Ends one session of an operator by its id; false when it has none by that id. */
export async function deleteSessionById(
  trx: Transaction<Database>,
  operatorId: string,
  sessionId: string,
): Promise<boolean> {
  const result = await trx
    .deleteFrom('operator_sessions')
    .where('operator_id', '=', operatorId)
    .where('id', '=', sessionId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Ends every session of an operator but one (the one making the request). */
export async function deleteOtherSessions(
  trx: Transaction<Database>,
  operatorId: string,
  keepId: string,
): Promise<number> {
  const result = await trx
    .deleteFrom('operator_sessions')
    .where('operator_id', '=', operatorId)
    .where('id', '<>', keepId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Moves last_seen_at on, unless the session went idle meanwhile (the check and the move are one statement). */
export async function touchSession(db: Kysely<Database>, tokenHash: string, now: number, idleMs: number) {
  await db
    .updateTable('operator_sessions')
    .set({ last_seen_at: now })
    .where('token_hash', '=', tokenHash)
    .where('last_seen_at', '>', now - idleMs)
    .execute();
}

export async function deleteSession(db: Kysely<Database>, tokenHash: string): Promise<void> {
  await db.deleteFrom('operator_sessions').where('token_hash', '=', tokenHash).execute();
}

export async function deleteSessionsOf(trx: Transaction<Database>, operatorId: string): Promise<number> {
  const result = await trx
    .deleteFrom('operator_sessions')
    .where('operator_id', '=', operatorId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Housekeeping: sessions, sign-ins and invitations a day after they ended. */
export async function purgeExpired(db: Kysely<Database>, now: number): Promise<void> {
  const dayAgo = now - 24 * 60 * 60 * 1000;
  await db.deleteFrom('operator_sessions').where('expires_at', '<', dayAgo).execute();
  await db.deleteFrom('operator_sign_ins').where('expires_at', '<', dayAgo).execute();
  await db
    .deleteFrom('operator_invitations')
    .where('expires_at', '<', dayAgo)
    .where('accepted_at', 'is', null)
    .execute();
}
