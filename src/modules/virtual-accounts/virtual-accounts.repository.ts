import type { Kysely, Selectable, Transaction } from 'kysely';
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
