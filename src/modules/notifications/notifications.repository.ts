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
 * Who receives a partner's notifications. Today a business has one login, its registered e-mail;
 * once dashboard users exist this returns its owners and admins (less those who turned the kind
 * off), and nothing else has to change (docs/decisions.md, "Notifications").
 */
export async function partnerRecipients(db: Kysely<Database>, partnerId: number): Promise<string[]> {
  const row = await db.selectFrom('partners').select('email').where('id', '=', partnerId).executeTakeFirst();
  return row ? [row.email] : [];
}
