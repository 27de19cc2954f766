import type { Kysely } from 'kysely';
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
 * Who receives a partner's notifications: its current owners and admins (docs/decisions.md,
 * "Notifications" and "Dashboard users and roles"), first owner first.
 */
export async function partnerRecipients(db: Kysely<Database>, partnerId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('partner_users')
    .select('email')
    .where('partner_id', '=', partnerId)
    .where('role', 'in', ['owner', 'admin'])
    .where('removed_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => row.email);
}
