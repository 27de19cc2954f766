import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { TeamMembersTable } from './team.table.js';

export type TeamMemberRow = Selectable<TeamMembersTable>;

export async function insertMember(db: Kysely<Database>, row: Insertable<TeamMembersTable>): Promise<void> {
  await db.insertInto('team_members').values(row).execute();
}

export function findMember(
  db: Kysely<Database>,
  partnerId: number,
  id: string,
): Promise<TeamMemberRow | undefined> {
  return db
    .selectFrom('team_members')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function listMembers(
  db: Kysely<Database>,
  partnerId: number,
  filter: { afterId?: string; limit: number },
) {
  let query = db
    .selectFrom('team_members')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .orderBy('id')
    .limit(filter.limit + 1);
  if (filter.afterId !== undefined) query = query.where('id', '>', filter.afterId);
  return query.execute();
}

export async function updateMember(
  db: Kysely<Database>,
  partnerId: number,
  id: string,
  changes: Updateable<TeamMembersTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('team_members')
    .set(changes)
    .where('partner_id', '=', partnerId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function deleteMember(db: Kysely<Database>, partnerId: number, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('team_members')
    .where('partner_id', '=', partnerId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
