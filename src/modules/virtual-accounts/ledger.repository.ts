import { type ExpressionBuilder, type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { greatestOf } from '../../platform/db/dialect.js';
import type { Guard } from '../../platform/db/insert-batch.js';
import { prepare } from '../../platform/db/prepared.js';
import type { Database } from '../../platform/db/schema.js';
import type { EntryKind, EntryType } from './virtual-accounts.schemas.js';
import type { AccountTransactionsTable, VirtualAccountsTable } from './virtual-accounts.table.js';

export type EntryRow = Selectable<AccountTransactionsTable>;

/** The other bank account of an entry: the sender of money in, the beneficiary of money out. */
export interface Counterparty {
  account_name: string;
  account_number: string;
  bank_code: string;
  bank_name: string | null;
}

/** An entry to post: what moved, why, and with whom; the ledger adds its time and balance_after. */
export interface NewEntry {
  id: string;
  type: EntryType;
  kind: EntryKind;
  /** Positive kobo. */
  amountKobo: number;
  narration: string | null;
  reference: string;
  counterparty: Counterparty | null;
  sessionId: string | null;
  transferId: string | null;
}

/** Which account to post to: by id, or by its number at an institution in an environment. */
export type AccountKey =
  | { id: string }
  | { bankCode: string; accountNumber: string; environment: AccountTransactionsTable['environment'] };

/** The account row as the posting UPDATE left it: its balance and last_entry_at are the new entry's. */
export type PostedAccount = Selectable<VirtualAccountsTable>;

/**
 * Posts an entry's amount to an `active` account in one UPDATE (with settleOnAccount, the only ways a
 * balance moves): it takes the row lock, adds the signed amount (a debit beyond the available balance,
 * balance − held, matches nothing; the columns' CHECKs refuse it all the same) and dates the entry after the account's latest entry and
 * last status change (`last_entry_at`), from the row as it is under the lock. So an account's ledger
 * order (created_at, id) is its commit order, which running balances and statements rely on. The
 * caller writes `entryRow(…)` in the same transaction. Undefined when no active account matched (or
 * the debit did not fit): the caller reads why.
 */
export async function postToAccount(
  trx: Transaction<Database>,
  key: AccountKey,
  entry: Pick<NewEntry, 'type' | 'amountKobo'>,
  now: number,
): Promise<PostedAccount | undefined> {
  const signed = entry.type === 'credit' ? entry.amountKobo : -entry.amountKobo;
  const minimum = Math.max(0, -signed);
  const post = () =>
    'id' in key
      ? postById(trx, key.id, signed, minimum, now)
      : postByNumber(trx, key.bankCode, key.accountNumber, key.environment, signed, minimum, now);
  const posted = (await post())[0] as PostedAccount | undefined;
  if (posted) return posted;
  // On PostgreSQL (READ COMMITTED) the UPDATE judges a row as its statement's snapshot had it: a
  // reactivation committing meanwhile leaves it skipping a row that is active by the time the caller
  // reads why (a credit racing a reactivation was answered 500). So a miss is judged again under the
  // row's lock, which a second statement sees as committed: its miss is the account as it stands.
  if (!(await lockByKey(trx, key))) return undefined;
  return (await post())[0] as PostedAccount | undefined;
}

/** Takes the row lock of the account a key names (a no-op UPDATE); false when there is none. */
async function lockByKey(trx: Transaction<Database>, key: AccountKey): Promise<boolean> {
  let query = trx.updateTable('virtual_accounts').set((eb) => ({ status: eb.ref('status') }));
  query =
    'id' in key
      ? query.where('id', '=', key.id)
      : query
          .where('bank_code', '=', key.bankCode)
          .where('account_number', '=', key.accountNumber)
          .where('environment', '=', key.environment);
  const result = await query.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The date of a new entry: after the account's latest entry and last status change (see postToAccount). */
function nextEntryAt(eb: ExpressionBuilder<Database, 'virtual_accounts'>, db: Kysely<Database>, now: number) {
  return eb.fn<number>(greatestOf(db), [
    eb.val(now),
    eb.fn.coalesce('status_changed_at', eb.val(now)),
    eb(eb.fn.coalesce('last_entry_at', eb.val(-1)), '+', 1),
  ]);
}

/** What the account can spend: its balance less what transfers hold. */
const available = (eb: ExpressionBuilder<Database, 'virtual_accounts'>) =>
  eb('balance_kobo', '-', eb.ref('held_kobo'));

/** The posting UPDATE of an active account whose available balance is at least `minimum`: see postToAccount. */
function posting(db: Kysely<Database>, signed: number, minimum: number, now: number) {
  return db
    .updateTable('virtual_accounts')
    .set((eb) => ({
      balance_kobo: eb('balance_kobo', '+', signed),
      last_entry_at: nextEntryAt(eb, db, now),
    }))
    .where('status', '=', 'active')
    .where((eb) => eb(available(eb), '>=', minimum));
}

// Compiled once: a credit is on the hot path of money in.
const postById = prepare(
  (db, id: string, signed: number, minimum: number, now: number) =>
    posting(db, signed, minimum, now).where('id', '=', id).returningAll(),
  4,
);
const postByNumber = prepare(
  (
    db,
    bankCode: string,
    accountNumber: string,
    environment: AccountTransactionsTable['environment'],
    signed: number,
    minimum: number,
    now: number,
  ) =>
    posting(db, signed, minimum, now)
      .where('bank_code', '=', bankCode)
      .where('account_number', '=', accountNumber)
      .where('environment', '=', environment)
      .returningAll(),
  6,
);

/**
 * Holds `amountKobo` (a transfer's amount and fee) on an `active` account whose available balance
 * covers it, in one UPDATE under the row lock: concurrent transfers each see the holds committed
 * before them, so together they never hold more than the balance. As the guard of a batch
 * (insert-batch.ts), the transfer's rows are written only with the hold: in one statement on
 * PostgreSQL (`build`), in the write's transaction elsewhere (`run`, prepared). When it matches
 * nothing (the account not active, or the money not there) the caller reads why.
 */
export function holdGuard(accountId: string, amountKobo: number): Guard {
  return {
    name: 'virtual_accounts.hold',
    parameters: [amountKobo, accountId, amountKobo],
    build: (db) =>
      db
        .updateTable('virtual_accounts')
        .set({ held_kobo: sql<number>`held_kobo + ${amountKobo}` })
        .where(
          sql<boolean>`id = ${accountId} and status = 'active' and balance_kobo - held_kobo >= ${amountKobo}`,
        )
        .returning('id'),
    run: async (db) => (await holdById(db, accountId, amountKobo)).length > 0,
  };
}

const holdById = prepare(
  (db, id: string, amount: number) =>
    db
      .updateTable('virtual_accounts')
      .set((eb) => ({ held_kobo: eb('held_kobo', '+', amount) }))
      .where('id', '=', id)
      .where('status', '=', 'active')
      .where((eb) => eb(available(eb), '>=', amount))
      .returningAll(),
  2,
);

/** Releases a failed transfer's hold; throws if the account does not hold that much (a broken ledger). */
export async function releaseHold(trx: Transaction<Database>, accountId: string, amountKobo: number) {
  const row = await trx
    .updateTable('virtual_accounts')
    .set((eb) => ({ held_kobo: eb('held_kobo', '-', amountKobo) }))
    .where('id', '=', accountId)
    .where('held_kobo', '>=', amountKobo)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new Error(`account ${accountId} holds less than ${amountKobo} kobo`);
  return row;
}

/**
 * Posts an entry that settles a transfer, whatever the account's status now (the money left, or came
 * back, when the bank says so): moves the balance by the signed amount and releases `releaseKobo` of
 * its hold, in one UPDATE, dated like every entry (see postToAccount). Throws if the account does not
 * hold what is released or the balance would go below zero: neither can happen to a sound ledger.
 */
export async function settleOnAccount(
  trx: Transaction<Database>,
  accountId: string,
  entry: Pick<NewEntry, 'type' | 'amountKobo'>,
  releaseKobo: number,
  now: number,
): Promise<PostedAccount> {
  const signed = entry.type === 'credit' ? entry.amountKobo : -entry.amountKobo;
  const rows = await settleById(trx, accountId, signed, releaseKobo, now);
  const row = rows[0] as PostedAccount | undefined;
  if (!row) throw new Error(`account ${accountId} cannot settle ${signed} kobo releasing ${releaseKobo}`);
  return row;
}

const settleById = prepare(
  (db, id: string, signed: number, release: number, now: number) =>
    db
      .updateTable('virtual_accounts')
      .set((eb) => ({
        balance_kobo: eb('balance_kobo', '+', signed),
        held_kobo: eb('held_kobo', '-', release),
        last_entry_at: nextEntryAt(eb, db, now),
      }))
      .where('id', '=', id)
      .where('held_kobo', '>=', release)
      .returningAll(),
  4,
);

/** The entry `postToAccount` made room for: its balance_after and time are the account's, as posted. */
export function entryRow(account: PostedAccount, entry: NewEntry): EntryRow {
  return {
    id: entry.id,
    account_id: account.id,
    partner_id: account.partner_id,
    environment: account.environment,
    type: entry.type,
    kind: entry.kind,
    amount_kobo: entry.amountKobo,
    balance_after_kobo: Number(account.balance_kobo),
    narration: entry.narration,
    reference: entry.reference,
    counterparty_account_name: entry.counterparty?.account_name ?? null,
    counterparty_account_number: entry.counterparty?.account_number ?? null,
    counterparty_bank_code: entry.counterparty?.bank_code ?? null,
    counterparty_bank_name: entry.counterparty?.bank_name ?? null,
    session_id: entry.sessionId,
    transfer_id: entry.transferId,
    created_at: Number(account.last_entry_at),
  };
}

/**
 * The entry an inbound transfer's session id credited, if any: live session ids are unique across
 * the institution, sandbox ones per partner (the partial unique indexes this reads).
 */
export function findBySession(
  db: Kysely<Database>,
  account: { partner_id: number; environment: EntryRow['environment'] },
  sessionId: string,
): Promise<EntryRow | undefined> {
  let query = db
    .selectFrom('account_transactions')
    .selectAll()
    .where('environment', '=', account.environment)
    .where('session_id', '=', sessionId);
  if (account.environment === 'sandbox') query = query.where('partner_id', '=', account.partner_id);
  return query.executeTakeFirst();
}

export function listEntries(
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

const signedAmount = sql<number>`case when type = 'credit' then amount_kobo else -amount_kobo end`;

/**
 * A statement's figures and its last row, in one statement (one consistent reading): the balance
 * after the last entry before the period (one index lookup, whatever the account's history), the
 * period's credits and debits, and the period's last row by (created_at, id). Entries of an account
 * are dated strictly increasing in commit order (under the account's lock), so rows up to that last
 * one are exactly the ones summed, whatever commits while the statement is read.
 */
export async function statementHead(
  db: Kysely<Database>,
  accountId: string,
  period: { start: number; end: number },
): Promise<{
  openingKobo: number;
  creditsKobo: number;
  debitsKobo: number;
  last: LedgerPosition | undefined;
}> {
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
  const sumOf = (type: EntryType) =>
    db
      .selectFrom('account_transactions')
      .select(sql<number>`cast(coalesce(sum(amount_kobo), 0) as bigint)`.as('sum'))
      .where(inPeriod)
      .where('type', '=', type);
  const row = await db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('account_transactions')
        .select('balance_after_kobo')
        .where('account_id', '=', accountId)
        .where('created_at', '<', period.start)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .as('opening'),
      sumOf('credit').as('credits'),
      sumOf('debit').as('debits'),
      lastOf('created_at').as('last_at'),
      lastOf('id').as('last_id'),
    ])
    .executeTakeFirstOrThrow();
  return {
    openingKobo: Number(row.opening ?? 0),
    creditsKobo: Number(row.credits),
    debitsKobo: Number(row.debits),
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
): Promise<EntryRow[]> {
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

/** An account whose ledger does not add up, and how. */
export interface LedgerMismatch {
  account_id: string;
  account_number: string;
  /** Σ credits − Σ debits of its entries. */
  entries_kobo: number;
  balance_kobo: number;
  /** Entries whose balance_after is not the one before it plus or minus its amount. */
  broken_entries: number;
}

/**
 * Every account whose balance is not the sum of its entries, or whose entries' running balances do
 * not chain (each balance_after = the previous one ± its amount, the first from zero, the last equal
 * to the account's balance). Two scans of the ledger, whatever its size; the empty list proves it.
 */
export async function ledgerMismatches(db: Kysely<Database>): Promise<LedgerMismatch[]> {
  const sums = await db
    .selectFrom('virtual_accounts as a')
    .leftJoin('account_transactions as t', 't.account_id', 'a.id')
    .select([
      'a.id',
      'a.account_number',
      'a.balance_kobo',
      sql<number>`cast(coalesce(sum(${signedAmount}), 0) as bigint)`.as('entries_kobo'),
    ])
    .groupBy(['a.id', 'a.account_number', 'a.balance_kobo'])
    .having(sql<boolean>`coalesce(sum(${signedAmount}), 0) <> a.balance_kobo`)
    .execute();
  const chains = await db
    .selectFrom(
      db
        .selectFrom('account_transactions')
        .select([
          'account_id',
          'balance_after_kobo',
          sql<number>`coalesce(lag(balance_after_kobo) over (partition by account_id order by created_at, id), 0) + ${signedAmount}`.as(
            'expected',
          ),
        ])
        .as('chain'),
    )
    .select(['account_id', (eb) => eb.fn.countAll<number>().as('broken')])
    .whereRef('balance_after_kobo', '<>', 'expected')
    .groupBy('account_id')
    .execute();
  const broken = new Map(chains.map((row) => [row.account_id, Number(row.broken)]));
  const mismatches = new Map<string, LedgerMismatch>(
    sums.map((row) => [
      row.id,
      {
        account_id: row.id,
        account_number: row.account_number,
        entries_kobo: Number(row.entries_kobo),
        balance_kobo: Number(row.balance_kobo),
        broken_entries: broken.get(row.id) ?? 0,
      },
    ]),
  );
  const missing = [...broken.keys()].filter((id) => !mismatches.has(id));
  if (missing.length > 0) {
    const accounts = await db
      .selectFrom('virtual_accounts')
      .select(['id', 'account_number', 'balance_kobo'])
      .where('id', 'in', missing)
      .execute();
    for (const account of accounts) {
      mismatches.set(account.id, {
        account_id: account.id,
        account_number: account.account_number,
        entries_kobo: Number(account.balance_kobo),
        balance_kobo: Number(account.balance_kobo),
        broken_entries: broken.get(account.id) ?? 0,
      });
    }
  }
  return [...mismatches.values()];
}
