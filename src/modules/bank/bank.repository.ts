import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { BankCreditNotificationsTable, NotificationOutcome } from './bank.table.js';

export type NotificationRow = Selectable<BankCreditNotificationsTable> & { business_name: string | null };
export type NewNotification = Insertable<BankCreditNotificationsTable>;

export async function insertNotification(db: Kysely<Database>, row: NewNotification): Promise<void> {
  await db.insertInto('bank_credit_notifications').values(row).execute();
}

/** A position in the list's order: received_at, then id, both descending. */
export interface ListPosition {
  at: number;
  id: string;
}

/** A page of notifications, newest first, with the account's partner name. */
export function listNotifications(
  db: Kysely<Database>,
  filter: {
    outcome: NotificationOutcome | undefined;
    from: number | undefined;
    to: number | undefined;
    after: ListPosition | undefined;
    limit: number;
  },
): Promise<NotificationRow[]> {
  let query = db
    .selectFrom('bank_credit_notifications as n')
    .leftJoin('partners as p', 'p.id', 'n.partner_id')
    .selectAll('n')
    .select('p.business_name')
    .orderBy('n.received_at', 'desc')
    .orderBy('n.id', 'desc')
    .limit(filter.limit + 1);
  if (filter.outcome !== undefined) query = query.where('n.outcome', '=', filter.outcome);
  if (filter.from !== undefined) query = query.where('n.received_at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('n.received_at', '<=', filter.to);
  const after = filter.after;
  if (after !== undefined) {
    query = query.where((eb) => eb(eb.refTuple('n.received_at', 'n.id'), '<', eb.tuple(after.at, after.id)));
  }
  return query.execute();
}
