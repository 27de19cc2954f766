import {
  type ExpressionBuilder,
  type Insertable,
  type Kysely,
  type Selectable,
  sql,
  type Transaction,
} from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { Environment } from '../../platform/environment.js';
import type { AccountStatus } from './virtual-accounts.schemas.js';
import type { AccountTransactionsTable, VirtualAccountsTable } from './virtual-accounts.table.js';

export type VirtualAccountRow = Selectable<VirtualAccountsTable>;
export type TransactionRow = Selectable<AccountTransactionsTable>;

export interface Scope {
  partnerId: number;
  environment: Environment;
}

/** The account of an end-user e-mail that is not closed: at most one (a partial unique index). */
export function findOpenAccountByEmail(db: Kysely<Database>, scope: Scope, email: string) {
  return db
    .selectFrom('virtual_accounts')
    .selectAll()
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .where('customer_email', '=', email)
    .where('status', '<>', 'closed')
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

export interface AccountFilter {
  status?: AccountStatus;
  email?: string;
  createdFrom?: number;
  createdTo?: number;
}

/** Keyset page, newest first, narrowed by the filter. */
export function listAccounts(
  db: Kysely<Database>,
  scope: Scope,
  filter: AccountFilter & { beforeId?: string; limit: number },
) {
  let query = db
    .selectFrom('virtual_accounts')
    .selectAll()
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .orderBy('id', 'desc')
    .limit(filter.limit + 1);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.email !== undefined) query = query.where('customer_email', '=', filter.email);
  if (filter.createdFrom !== undefined) query = query.where('created_at', '>=', filter.createdFrom);
  if (filter.createdTo !== undefined) query = query.where('created_at', '<=', filter.createdTo);
  return query.execute();
}

/**
 * Moves the account's status only from one of `from`, under the row lock this UPDATE takes: a credit
 * (which takes the same lock and checks the status under it) either commits before or sees the change.
 */
export function changeAccountStatus(
  trx: Transaction<Database>,
  accountId: string,
  change: { from: readonly AccountStatus[]; to: AccountStatus; reason: string | null },
  now: number,
): Promise<VirtualAccountRow | undefined> {
  return trx
    .updateTable('virtual_accounts')
    .set({ status: change.to, status_reason: change.reason, status_changed_at: now })
    .where('id', '=', accountId)
    .where('status', 'in', [...change.from])
    .returningAll()
    .executeTakeFirst();
}

/** When the account's latest credit is dated, if it has one (read under the account's row lock). */
export async function lastCreditAt(
  trx: Transaction<Database>,
  accountId: string,
): Promise<number | undefined> {
  const row = await trx
    .selectFrom('account_transactions')
    .select((eb) => eb.fn.max('created_at').as('at'))
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
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
 * Serializes credits and status changes of one account: the no-op update takes the row lock on
 * PostgreSQL (SQLite already runs one writer at a time) and returns the status as it is under the
 * lock (the row as it is under it), so a credit cannot land on an account a racing deactivation
 * has switched off, and the balance read after it is exact.
 */
export function lockAccount(trx: Transaction<Database>, accountId: string): Promise<VirtualAccountRow> {
  return trx
    .updateTable('virtual_accounts')
    .set((eb) => ({ status: eb.ref('status') }))
    .where('id', '=', accountId)
    .returningAll()
    .executeTakeFirstOrThrow();
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

/** A position in an account's ledger order (created_at, then id). */
export interface LedgerPosition {
  created_at: number;
  id: string;
}

/**
 * A statement's figures and its last row, in one statement (one consistent reading): the credits
 * before the period, those within it, and the period's last row by (created_at, id). Credits of an
 * account are dated strictly increasing in commit order (under the account's lock), so rows up to
 * that last one are exactly the ones summed, whatever commits while the statement is read.
 */
export async function statementHead(
  db: Kysely<Database>,
  accountId: string,
  period: { start: number; end: number },
): Promise<{ openingKobo: number; periodKobo: number; last: LedgerPosition | undefined }> {
  const inPeriod = (eb: ExpressionBuilder<Database, 'account_transactions'>) =>
    eb.and([
      eb('account_id', '=', accountId),
      eb('created_at', '>=', period.start),
      eb('created_at', '<=', period.end),
    ]);
  const lastOf = (column: 'created_at' | 'id') =>
    db
      .selectFrom('account_transactions')
      .select(column)
      .where(inPeriod)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1);
  const row = await db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('account_transactions')
        .select(sql<number>`cast(coalesce(sum(amount_kobo), 0) as bigint)`.as('sum'))
        .where('account_id', '=', accountId)
        .where('created_at', '<', period.start)
        .as('opening'),
      eb
        .selectFrom('account_transactions')
        .select(sql<number>`cast(coalesce(sum(amount_kobo), 0) as bigint)`.as('sum'))
        .where(inPeriod)
        .as('period'),
      lastOf('created_at').as('last_at'),
      lastOf('id').as('last_id'),
    ])
    .executeTakeFirstOrThrow();
  return {
    openingKobo: Number(row.opening),
    periodKobo: Number(row.period),
    last:
      row.last_at === null || row.last_id === null
        ? undefined
        : { created_at: Number(row.last_at), id: String(row.last_id) },
  };
}

/** The next rows of a statement after `after`, up to `last`, oldest first (off the account-and-time index). */
export function statementPage(
  db: Kysely<Database>,
  accountId: string,
  bounds: { start: number; after: LedgerPosition | undefined; last: LedgerPosition },
  limit: number,
): Promise<TransactionRow[]> {
  let query = db
    .selectFrom('account_transactions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('created_at', '>=', bounds.start)
    .where((eb) =>
      eb(eb.refTuple('created_at', 'id'), '<=', eb.tuple(bounds.last.created_at, bounds.last.id)),
    );
  const after = bounds.after;
  if (after) {
    query = query.where((eb) =>
      eb(eb.refTuple('created_at', 'id'), '>', eb.tuple(after.created_at, after.id)),
    );
  }
  return query.orderBy('created_at').orderBy('id').limit(limit).execute();
}
