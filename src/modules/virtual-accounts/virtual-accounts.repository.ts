import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { knownValue, startsWith } from '../../platform/db/dialect.js';
import { prepare } from '../../platform/db/prepared.js';
import type { Database } from '../../platform/db/schema.js';
import type { Environment } from '../../platform/environment.js';
import type { AccountKey } from './ledger.repository.js';
import type { AccountStatus } from './virtual-accounts.schemas.js';
import type { VirtualAccountsTable } from './virtual-accounts.table.js';

export type VirtualAccountRow = Selectable<VirtualAccountsTable>;

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

export async function findAccountByNumber(
  db: Kysely<Database>,
  scope: Scope,
  accountNumber: string,
): Promise<VirtualAccountRow | undefined> {
  return (await accountByNumber(db, scope.partnerId, scope.environment, accountNumber))[0] as
    | VirtualAccountRow
    | undefined;
}

// Compiled once: every request that names an account (reads, credits, transfers) starts here.
const accountByNumber = prepare(
  (db, partnerId: number, environment: Scope['environment'], accountNumber: string) =>
    db
      .selectFrom('virtual_accounts')
      .selectAll()
      .where('partner_id', '=', partnerId)
      .where('environment', '=', environment)
      .where('account_number', '=', accountNumber),
  3,
);

export interface AccountFilter {
  status?: AccountStatus;
  email?: string;
  createdFrom?: number;
  createdTo?: number;
  /** A prefix, lower-cased, of the account number, the e-mail, the full name or the last name. */
  search?: string;
}

/** The lower-cased names the search compares; the same expressions as the indexes of 2026-11-28-03. */
const FULL_NAME = sql`lower(first_name || ' ' || last_name)`;
const LAST_NAME = sql`lower(last_name)`;

/** The accounts of a scope the filter matches (exported for the query-plan tests). */
export function filteredAccounts(db: Kysely<Database>, scope: Scope, filter: AccountFilter) {
  let query = db
    .selectFrom('virtual_accounts')
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment);
  if (filter.status !== undefined) query = query.where('status', '=', knownValue(filter.status));
  if (filter.email !== undefined) query = query.where('customer_email', '=', filter.email);
  if (filter.createdFrom !== undefined) query = query.where('created_at', '>=', filter.createdFrom);
  if (filter.createdTo !== undefined) query = query.where('created_at', '<=', filter.createdTo);
  const search = filter.search;
  if (search !== undefined) {
    // Each alternative is a range scan of its own index; the planners union them (PostgreSQL's
    // BitmapOr, SQLite's OR-by-union) instead of reading every account of the partner.
    query = query.where((eb) =>
      eb.or([
        startsWith(db, sql.ref('account_number'), search),
        startsWith(db, sql.ref('customer_email'), search),
        startsWith(db, FULL_NAME, search),
        startsWith(db, LAST_NAME, search),
      ]),
    );
  }
  return query;
}

/** Keyset page narrowed by the filter, by creation (the id is time-ordered): newest first unless `asc`. */
export function listAccounts(
  db: Kysely<Database>,
  scope: Scope,
  filter: AccountFilter & { after?: string; order: 'asc' | 'desc'; limit: number },
) {
  let query = filteredAccounts(db, scope, filter)
    .selectAll()
    .orderBy('id', filter.order)
    .limit(filter.limit + 1);
  if (filter.after !== undefined) query = query.where('id', filter.order === 'asc' ? '>' : '<', filter.after);
  return query.execute();
}

/**
 * How many accounts the filter matches, counting at most `cap + 1` rows so a broad filter costs a
 * bounded scan: a result above `cap` means "more than cap".
 */
export async function countAccounts(
  db: Kysely<Database>,
  scope: Scope,
  filter: AccountFilter,
  cap: number,
): Promise<number> {
  const row = await db
    .selectFrom(
      filteredAccounts(db, scope, filter)
        .select('id')
        .limit(cap + 1)
        .as('matching'),
    )
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
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

/** The account a ledger key names (by id, or by number at an institution in an environment). */
export function findAccountByKey(db: Kysely<Database>, key: AccountKey) {
  let query = db.selectFrom('virtual_accounts').selectAll();
  query =
    'id' in key
      ? query.where('id', '=', key.id)
      : query
          .where('bank_code', '=', key.bankCode)
          .where('account_number', '=', key.accountNumber)
          .where('environment', '=', key.environment);
  return query.executeTakeFirst();
}

export function findAccountById(db: Kysely<Database>, accountId: string) {
  return db.selectFrom('virtual_accounts').selectAll().where('id', '=', accountId).executeTakeFirstOrThrow();
}
