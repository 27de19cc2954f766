import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../platform/db/schema.js';

/** The business's name as it registered, for greetings and subjects. */
export async function partnerName(db: Kysely<Database>, partnerId: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('partners')
    .select('business_name')
    .where('id', '=', partnerId)
    .executeTakeFirst();
  return row?.business_name;
}

/**
 * Who receives a partner's notification of `kind`: its current owners and admins (docs/decisions.md,
 * "Notifications" and "Dashboard users and roles"), first owner first, but for those who turned the
 * kind off (`mutable`: false for a kind nobody may turn off).
 */
export async function partnerRecipients(
  db: Kysely<Database>,
  partnerId: number,
  kind: { name: string; mutable: boolean },
): Promise<string[]> {
  let query = db
    .selectFrom('partner_users as u')
    .select('u.email')
    .where('u.partner_id', '=', partnerId)
    .where('u.role', 'in', ['owner', 'admin'])
    .where('u.removed_at', 'is', null);
  if (kind.mutable) {
    query = query.where(({ exists, not, selectFrom }) =>
      not(
        exists(
          selectFrom('notification_mutes as m')
            .select('m.kind')
            .whereRef('m.user_id', '=', 'u.id')
            .where('m.kind', '=', kind.name),
        ),
      ),
    );
  }
  const rows = await query.orderBy('u.created_at').orderBy('u.id').execute();
  return rows.map((row) => row.email);
}

/** The kinds a user turned off. */
export async function mutedKinds(db: Kysely<Database>, userId: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('notification_mutes')
    .select('kind')
    .where('user_id', '=', userId)
    .execute();
  return new Set(rows.map((row) => row.kind));
}

/** Turns `off` kinds off and `on` kinds on for a user (each idempotent: a repeat changes nothing). */
export async function setMutes(
  trx: Transaction<Database>,
  userId: string,
  change: { off: readonly string[]; on: readonly string[] },
  now: number,
): Promise<void> {
  if (change.off.length > 0) {
    await trx
      .insertInto('notification_mutes')
      .values(change.off.map((kind) => ({ user_id: userId, kind, created_at: now })))
      .onConflict((conflict) => conflict.columns(['user_id', 'kind']).doNothing())
      .execute();
  }
  if (change.on.length > 0) {
    await trx
      .deleteFrom('notification_mutes')
      .where('user_id', '=', userId)
      .where('kind', 'in', change.on)
      .execute();
  }
}
