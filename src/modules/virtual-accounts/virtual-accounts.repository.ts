import { type Insertable, type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { Environment } from '../../platform/environment.js';
import type { AccountTransactionsTable, VirtualAccountsTable } from './virtual-accounts.table.js';

export type VirtualAccountRow = Selectable<VirtualAccountsTable>;
export type TransactionRow = Selectable<AccountTransactionsTable>;

export interface Scope {
  partnerId: number;
  environment: Environment;
}

export async function businessNameOf(db: Kysely<Database>, partnerId: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('partners')
    .select('business_name')
    .where('id', '=', partnerId)
    .executeTakeFirst();
  return row?.business_name;
}

export async function insertAccount(
  db: Kysely<Database>,
  row: Insertable<VirtualAccountsTable>,
): Promise<void> {
  await db.insertInto('virtual_accounts').values(row).execute();
}

export function findAccountByEmail(db: Kysely<Database>, scope: Scope, email: string) {
  return db
    .selectFrom('virtual_accounts')
    .selectAll()
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .where('customer_email', '=', email)
    .executeTakeFirst();
}

export function findAccountByNumber(db: Kysely<Database>, scope: Scope, accountNumber: string) {
  return db
    .selectFrom('virtual_accounts')
    .selectAll()
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .where('account_number', '=', accountNumber)
    .executeTakeFirst();
}

export function listAccounts(
  db: Kysely<Database>,
  scope: Scope,
  filter: { beforeId?: string; limit: number },
) {
  let query = db
    .selectFrom('virtual_accounts')
    .selectAll()
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .orderBy('id', 'desc')
    .limit(filter.limit + 1);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  return query.execute();
}

/** Balances in kobo, derived from the ledger. */
export async function balancesOf(
  db: Kysely<Database>,
  accountIds: readonly string[],
): Promise<Map<string, number>> {
  if (accountIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('account_transactions')
    .select(['account_id', sql<number>`cast(coalesce(sum(amount_kobo), 0) as bigint)`.as('balance')])
    .where('account_id', 'in', [...accountIds])
    .groupBy('account_id')
    .execute();
  return new Map(rows.map((row) => [row.account_id, Number(row.balance)]));
}

/**
 * Serializes credits to one account: the no-op update takes the row lock on PostgreSQL (SQLite
 * already runs one writer at a time), so the balance read after it is exact for this credit.
 */
export async function lockAccount(trx: Transaction<Database>, accountId: string): Promise<void> {
  await trx
    .updateTable('virtual_accounts')
    .set((eb) => ({ status: eb.ref('status') }))
    .where('id', '=', accountId)
    .execute();
}

export async function insertTransaction(
  db: Kysely<Database>,
  row: Insertable<AccountTransactionsTable>,
): Promise<void> {
  await db.insertInto('account_transactions').values(row).execute();
}

export function listTransactions(
  db: Kysely<Database>,
  accountId: string,
  filter: { beforeId?: string; limit: number },
) {
  let query = db
    .selectFrom('account_transactions')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('id', 'desc')
    .limit(filter.limit + 1);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  return query.execute();
}
