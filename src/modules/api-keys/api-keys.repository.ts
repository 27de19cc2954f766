import type { Insertable, Kysely } from 'kysely';
import { prepare } from '../../platform/db/prepared.js';
import type { Database } from '../../platform/db/schema.js';
import type { ApiKeysTable } from './api-keys.table.js';

/** What a partner may see of a key: never its hash; who created it, by name. */
const VISIBLE_COLUMNS = [
  'api_keys.id',
  'api_keys.name',
  'api_keys.environment',
  'api_keys.last4',
  'api_keys.created_at',
  'api_keys.last_used_at',
  'api_keys.revoked_at',
  'api_keys.created_by_user_id',
  'creator.name as created_by_name',
] as const;

const visibleKeys = (db: Kysely<Database>) =>
  db
    .selectFrom('api_keys')
    .leftJoin('partner_users as creator', 'creator.id', 'api_keys.created_by_user_id')
    .select(VISIBLE_COLUMNS);

export type ApiKeyView = NonNullable<Awaited<ReturnType<typeof findApiKey>>>;

export async function insertApiKey(db: Kysely<Database>, row: Insertable<ApiKeysTable>): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

const apiKeyByPrefix = prepare(
  (db, lookupPrefix: string) =>
    db
      .selectFrom('api_keys')
      .innerJoin('partners', 'partners.id', 'api_keys.partner_id')
      .select([
        'api_keys.id',
        'api_keys.partner_id',
        'api_keys.environment',
        'api_keys.key_hash',
        'api_keys.revoked_at',
        'api_keys.last_used_at',
        'partners.onboarding_status',
        'partners.business_name',
      ])
      .where('api_keys.lookup_prefix', '=', lookupPrefix),
  1,
);

/** The key and what authorization needs of its partner, in one indexed lookup (every request). */
export async function findApiKeyByPrefix(db: Kysely<Database>, lookupPrefix: string) {
  return (await apiKeyByPrefix(db, lookupPrefix))[0];
}

export function listApiKeys(
  db: Kysely<Database>,
  partnerId: number,
  filter: { beforeId?: string; limit: number },
) {
  let query = visibleKeys(db)
    .where('api_keys.partner_id', '=', partnerId)
    .orderBy('api_keys.id', 'desc')
    .limit(filter.limit + 1);
  if (filter.beforeId !== undefined) query = query.where('api_keys.id', '<', filter.beforeId);
  return query.execute();
}

export function findApiKey(db: Kysely<Database>, partnerId: number, id: string) {
  return visibleKeys(db)
    .where('api_keys.partner_id', '=', partnerId)
    .where('api_keys.id', '=', id)
    .executeTakeFirst();
}

export async function revokeApiKey(
  db: Kysely<Database>,
  partnerId: number,
  id: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('partner_id', '=', partnerId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function touchApiKey(db: Kysely<Database>, id: string, now: number): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute();
}

export async function onboardingStatusOf(
  db: Kysely<Database>,
  partnerId: number,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('partners')
    .select('onboarding_status')
    .where('id', '=', partnerId)
    .executeTakeFirst();
  return row?.onboarding_status;
}
