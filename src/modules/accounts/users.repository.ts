import { type Insertable, type Kysely, type Selectable, type SqlBool, sql, type Transaction } from 'kysely';
import type { UserRole } from '../../platform/auth/roles.js';
import { isPostgresDb, knownValue } from '../../platform/db/dialect.js';
import type { Database } from '../../platform/db/schema.js';
import type { PartnerInvitationsTable, PartnerUsersTable } from './accounts.table.js';

export type UserRow = Selectable<PartnerUsersTable>;
export type InvitationRow = Selectable<PartnerInvitationsTable>;

/** A current user by e-mail with what login needs of its business (the partial unique index serves it). */
export function findUserByEmail(db: Kysely<Database>, email: string) {
  return db
    .selectFrom('partner_users')
    .innerJoin('partners', 'partners.id', 'partner_users.partner_id')
    .selectAll('partner_users')
    .select(['partners.verified_at', 'partners.business_name'])
    .where(sql`lower(partner_users.email)`, '=', email.toLowerCase())
    .where('partner_users.removed_at', 'is', null)
    .executeTakeFirst();
}

export async function insertUser(db: Kysely<Database>, row: Insertable<PartnerUsersTable>): Promise<void> {
  await db.insertInto('partner_users').values(row).execute();
}

export async function touchLastLogin(db: Kysely<Database>, userId: string, now: number): Promise<void> {
  await db.updateTable('partner_users').set({ last_login_at: now }).where('id', '=', userId).execute();
}

const userWithInviter = (db: Kysely<Database>) =>
  db
    .selectFrom('partner_users as u')
    .leftJoin('partner_users as inviter', 'inviter.id', 'u.created_by_user_id')
    .selectAll('u')
    .select(['inviter.name as inviter_name']);

export type UserWithInviter = UserRow & { inviter_name: string | null };

/** A business's current users: owners first, then by when they joined. */
export function listUsers(db: Kysely<Database>, partnerId: number): Promise<UserWithInviter[]> {
  return userWithInviter(db)
    .where('u.partner_id', '=', partnerId)
    .where('u.removed_at', 'is', null)
    .orderBy(sql`case when u.role = 'owner' then 0 else 1 end`)
    .orderBy('u.created_at')
    .orderBy('u.id')
    .execute();
}

/** One user of the business, removed or not. */
export function findUser(
  db: Kysely<Database>,
  partnerId: number,
  userId: string,
): Promise<UserWithInviter | undefined> {
  return userWithInviter(db)
    .where('u.partner_id', '=', partnerId)
    .where('u.id', '=', userId)
    .executeTakeFirst();
}

/**
 * Serializes changes to a business's users on PostgreSQL: under READ COMMITTED two statements that
 * each count "another owner remains" would both see the other's owner and both succeed. Taken first
 * in the transaction, the lock makes the second wait, and its statement then sees the first's commit.
 * SQLite's single connection already runs one write transaction at a time.
 */
export async function lockUsersOf(trx: Transaction<Database>, partnerId: number): Promise<void> {
  if (!isPostgresDb<Database>(trx)) return;
  await trx.selectFrom('partners').select('id').where('id', '=', partnerId).forUpdate().execute();
}

/** Another current owner than `userId` exists in the business. */
const anotherOwner = (partnerId: number, userId: string) =>
  sql<SqlBool>`exists (select 1 from partner_users o where o.partner_id = ${partnerId} and o.role = ${knownValue('owner')} and o.removed_at is null and o.id <> ${userId})`;

/**
 * Changes a current user's role in one conditional UPDATE: never the last owner away from owner, and
 * for an admin (`byAdmin`) never an owner. Undefined when it did not apply (the caller says why).
 */
export async function changeRole(
  trx: Transaction<Database>,
  target: { partnerId: number; userId: string },
  role: UserRole,
  byAdmin: boolean,
  now: number,
): Promise<boolean> {
  let query = trx
    .updateTable('partner_users')
    .set({ role, updated_at: now })
    .where('id', '=', target.userId)
    .where('partner_id', '=', target.partnerId)
    .where('removed_at', 'is', null);
  if (byAdmin) query = query.where('role', '<>', 'owner');
  if (role !== 'owner') {
    query = query.where((eb) =>
      eb.or([eb('role', '<>', 'owner'), anotherOwner(target.partnerId, target.userId)]),
    );
  }
  const result = await query.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Removes a current user in one conditional UPDATE, with the same rules as changeRole. */
export async function removeUser(
  trx: Transaction<Database>,
  target: { partnerId: number; userId: string },
  byAdmin: boolean,
  now: number,
): Promise<boolean> {
  let query = trx
    .updateTable('partner_users')
    .set({ removed_at: now, updated_at: now })
    .where('id', '=', target.userId)
    .where('partner_id', '=', target.partnerId)
    .where('removed_at', 'is', null)
    .where((eb) => eb.or([eb('role', '<>', 'owner'), anotherOwner(target.partnerId, target.userId)]));
  if (byAdmin) query = query.where('role', '<>', 'owner');
  const result = await query.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Names of users by id, removed ones too (the audit trail and API keys name who acted). */
export async function userNames(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<Map<string, { name: string; email: string }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('partner_users')
    .select(['id', 'name', 'email'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((row) => [row.id, { name: row.name, email: row.email }]));
}

// Invitations

/** Revokes the business's pending invitation of the address, if any (a new one replaces it). */
export async function revokeOpenInvitation(
  trx: Transaction<Database>,
  partnerId: number,
  email: string,
  now: number,
): Promise<void> {
  await trx
    .updateTable('partner_invitations')
    .set({ revoked_at: now })
    .where('partner_id', '=', partnerId)
    .where('email', '=', email)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function insertInvitation(
  trx: Transaction<Database>,
  row: Insertable<PartnerInvitationsTable>,
): Promise<void> {
  await trx.insertInto('partner_invitations').values(row).execute();
}

const invitationWithInviter = (db: Kysely<Database>) =>
  db
    .selectFrom('partner_invitations as i')
    .leftJoin('partner_users as inviter', 'inviter.id', 'i.invited_by_user_id')
    .selectAll('i')
    .select(['inviter.name as inviter_name']);

export type InvitationWithInviter = InvitationRow & { inviter_name: string | null };

/** Pending invitations (not accepted, revoked or expired), newest first. */
export function listPendingInvitations(
  db: Kysely<Database>,
  partnerId: number,
  now: number,
): Promise<InvitationWithInviter[]> {
  return invitationWithInviter(db)
    .where('i.partner_id', '=', partnerId)
    .where('i.accepted_at', 'is', null)
    .where('i.revoked_at', 'is', null)
    .where('i.expires_at', '>', now)
    .orderBy('i.created_at', 'desc')
    .orderBy('i.id', 'desc')
    .execute();
}

export function findInvitation(
  db: Kysely<Database>,
  partnerId: number,
  id: string,
): Promise<InvitationWithInviter | undefined> {
  return invitationWithInviter(db)
    .where('i.partner_id', '=', partnerId)
    .where('i.id', '=', id)
    .executeTakeFirst();
}

/** The invitation of a token's hash, with its business's name. */
export function findInvitationByTokenHash(db: Kysely<Database>, tokenHash: string) {
  return db
    .selectFrom('partner_invitations')
    .innerJoin('partners', 'partners.id', 'partner_invitations.partner_id')
    .selectAll('partner_invitations')
    .select('partners.business_name')
    .where('partner_invitations.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** A new token and expiry for a pending invitation (the old link stops working); false if not pending. */
export async function renewInvitation(
  trx: Transaction<Database>,
  target: { partnerId: number; id: string },
  tokenHash: string,
  expiresAt: number,
  now: number,
): Promise<boolean> {
  const result = await trx
    .updateTable('partner_invitations')
    .set({ token_hash: tokenHash, expires_at: expiresAt, created_at: now })
    .where('id', '=', target.id)
    .where('partner_id', '=', target.partnerId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function revokeInvitation(
  trx: Transaction<Database>,
  target: { partnerId: number; id: string },
  now: number,
): Promise<boolean> {
  const result = await trx
    .updateTable('partner_invitations')
    .set({ revoked_at: now })
    .where('id', '=', target.id)
    .where('partner_id', '=', target.partnerId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Accepts the invitation of a token once: one conditional UPDATE, so of racing accepts exactly one
 * gets the row. Undefined when the token is unknown, used, revoked or expired.
 */
export function acceptInvitation(trx: Transaction<Database>, tokenHash: string, userId: string, now: number) {
  return trx
    .updateTable('partner_invitations')
    .set({ accepted_at: now, accepted_user_id: userId })
    .where('token_hash', '=', tokenHash)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}
