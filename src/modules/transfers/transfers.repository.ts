import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { knownValue } from '../../platform/db/dialect.js';
import { prepare } from '../../platform/db/prepared.js';
import type { Database } from '../../platform/db/schema.js';
import type { Environment } from '../../platform/environment.js';
import { extend } from '../../platform/objects.js';
import type { TransferStatus, TransferStatusChangesTable, TransfersTable } from './transfers.table.js';

export type TransferRow = Selectable<TransfersTable>;
export type StatusChangeRow = Selectable<TransferStatusChangesTable>;

export interface PartnerScope {
  partnerId: number;
  environment: Environment;
}

export function findById(db: Kysely<Database>, id: string) {
  return db.selectFrom('transfers').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findOwn(db: Kysely<Database>, scope: PartnerScope, id: string) {
  return db
    .selectFrom('transfers')
    .selectAll()
    .where('id', '=', id)
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .executeTakeFirst();
}

export function findByReference(db: Kysely<Database>, scope: PartnerScope, reference: string) {
  return db
    .selectFrom('transfers')
    .selectAll()
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .where('reference', '=', reference)
    .executeTakeFirst();
}

/** The status histories of `ids`, oldest first per transfer. */
export async function historiesOf(db: Kysely<Database>, ids: readonly string[]) {
  const byTransfer = new Map<string, StatusChangeRow[]>();
  if (ids.length === 0) return byTransfer;
  const rows = await db
    .selectFrom('transfer_status_changes')
    .selectAll()
    .where('transfer_id', 'in', ids)
    .orderBy('transfer_id')
    .orderBy('at')
    .orderBy('id')
    .execute();
  for (const row of rows) {
    const list = byTransfer.get(row.transfer_id) ?? [];
    list.push(row);
    byTransfer.set(row.transfer_id, list);
  }
  return byTransfer;
}

export interface TransferFilter {
  status?: TransferStatus | undefined;
  sourceAccountNumber?: string | undefined;
  reference?: string | undefined;
  createdFrom?: number | undefined;
  createdTo?: number | undefined;
}

/** A partner's transfers in an environment, newest first (ids are time-ordered). */
export function listOwn(
  db: Kysely<Database>,
  scope: PartnerScope,
  filter: TransferFilter & { beforeId?: string | undefined; limit: number },
) {
  let query = db
    .selectFrom('transfers')
    .selectAll()
    .where('partner_id', '=', scope.partnerId)
    .where('environment', '=', scope.environment)
    .orderBy('id', 'desc')
    .limit(filter.limit + 1);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.sourceAccountNumber !== undefined)
    query = query.where('source_account_number', '=', filter.sourceAccountNumber);
  if (filter.reference !== undefined) query = query.where('reference', '=', filter.reference);
  if (filter.createdFrom !== undefined) query = query.where('created_at', '>=', filter.createdFrom);
  if (filter.createdTo !== undefined) query = query.where('created_at', '<=', filter.createdTo);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  return query.execute();
}

/** Every partner's transfers for operators, newest first; `stuckBefore`: open ones created before it. */
export function listAll(
  db: Kysely<Database>,
  filter: {
    status?: TransferStatus | undefined;
    partnerId?: number | undefined;
    environment?: Environment | undefined;
    stuckBefore?: number | undefined;
    beforeId?: string | undefined;
    limit: number;
  },
) {
  let query = db
    .selectFrom('transfers')
    .innerJoin('partners', 'partners.id', 'transfers.partner_id')
    .selectAll('transfers')
    .select('partners.business_name')
    .orderBy('transfers.id', 'desc')
    .limit(filter.limit + 1);
  if (filter.status !== undefined) query = query.where('transfers.status', '=', filter.status);
  if (filter.partnerId !== undefined) query = query.where('transfers.partner_id', '=', filter.partnerId);
  if (filter.environment !== undefined) query = query.where('transfers.environment', '=', filter.environment);
  if (filter.stuckBefore !== undefined) {
    query = query
      .where('transfers.status', 'in', ['pending', 'processing'])
      .where('transfers.created_at', '<', filter.stuckBefore);
  }
  if (filter.beforeId !== undefined) query = query.where('transfers.id', '<', filter.beforeId);
  return query.execute();
}

/** Transfers the worker should look at now (not sent yet, or owed an answer), oldest due first. */
export function due(db: Kysely<Database>, now: number, limit: number) {
  return db
    .selectFrom('transfers')
    .selectAll()
    .where('next_query_at', 'is not', null)
    .where('next_query_at', '<=', now)
    .orderBy('next_query_at')
    .limit(limit)
    .execute();
}

/**
 * Takes a due transfer for `leaseMs`: one conditional UPDATE on the time it was due, so of several
 * workers (instances) exactly one gets it. Undefined when another took it first.
 */
export function lease(db: Kysely<Database>, row: TransferRow, until: number) {
  return db
    .updateTable('transfers')
    .set({ next_query_at: until })
    .where('id', '=', row.id)
    .where('next_query_at', '=', row.next_query_at)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Moves a transfer from one of `from` to `to`, with what else changes, in one conditional UPDATE:
 * of two concurrent moves only one applies. Undefined when the transfer was not in `from`.
 */
export function move(
  trx: Transaction<Database>,
  id: string,
  from: readonly TransferStatus[],
  to: TransferStatus,
  changes: Partial<
    Pick<
      TransferRow,
      'session_id' | 'failure_reason' | 'response_code' | 'sent_at' | 'next_query_at' | 'query_attempts'
    >
  >,
  now: number,
) {
  return trx
    .updateTable('transfers')
    .set(extend(changes, { status: to, updated_at: now }))
    .where('id', '=', id)
    .where('status', 'in', from)
    .returningAll()
    .executeTakeFirst();
}

/** Records when the bank is next asked, in a state that still waits for it. */
export function schedule(
  db: Kysely<Database>,
  id: string,
  status: TransferStatus,
  changes: Pick<TransferRow, 'next_query_at' | 'query_attempts' | 'response_code'>,
  now: number,
) {
  return db
    .updateTable('transfers')
    .set(extend(changes, { updated_at: now }))
    .where('id', '=', id)
    .where('status', '=', status)
    .executeTakeFirst();
}

/** The latest answer for this bank and account still good (the 30-minute cache). */
export function latestNameEnquiry(
  db: Kysely<Database>,
  environment: Environment,
  bankCode: string,
  accountNumber: string,
  notBefore: number,
) {
  return db
    .selectFrom('name_enquiries')
    .selectAll()
    .where('environment', '=', environment)
    .where('bank_code', '=', bankCode)
    .where('account_number', '=', accountNumber)
    .where('created_at', '>=', notBefore)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export function purgeNameEnquiries(db: Kysely<Database>, before: number) {
  return db.deleteFrom('name_enquiries').where('created_at', '<', before).execute();
}

/** A day's figures for the operator's report (see transfers.service.ts dailyReport). */
export async function dailyFigures(
  db: Kysely<Database>,
  environment: Environment,
  day: { start: number; end: number },
) {
  const signed = sql<number>`case when type = 'credit' then amount_kobo else -amount_kobo end`;
  const [entries, transfers, balances] = await Promise.all([
    db
      .selectFrom('account_transactions')
      .select([
        'kind',
        (eb) => eb.fn.countAll<number>().as('count'),
        sql<number>`cast(coalesce(sum(amount_kobo), 0) as bigint)`.as('amount_kobo'),
      ])
      .where('environment', '=', environment)
      .where('created_at', '>=', day.start)
      .where('created_at', '<=', day.end)
      .where('kind', 'in', ['inbound_transfer', 'fee'])
      .groupBy('kind')
      .execute(),
    db
      .selectFrom('transfers')
      .select([
        'status',
        (eb) => eb.fn.countAll<number>().as('count'),
        sql<number>`cast(coalesce(sum(amount_kobo), 0) as bigint)`.as('amount_kobo'),
      ])
      .where('environment', '=', environment)
      .where('created_at', '>=', day.start)
      .where('created_at', '<=', day.end)
      .groupBy('status')
      .execute(),
    // The balances at the day's end: today's total less every entry dated after the day.
    db
      .selectNoFrom((eb) => [
        eb
          .selectFrom('virtual_accounts')
          .select(sql<number>`cast(coalesce(sum(balance_kobo), 0) as bigint)`.as('total'))
          .where('environment', '=', environment)
          .as('total'),
        eb
          .selectFrom('account_transactions')
          .select(sql<number>`cast(coalesce(sum(${signed}), 0) as bigint)`.as('later'))
          .where('environment', '=', environment)
          .where('created_at', '>', day.end)
          .as('later'),
      ])
      .executeTakeFirstOrThrow(),
  ]);
  return { entries, transfers, balancesKobo: Number(balances.total ?? 0) - Number(balances.later ?? 0) };
}

/** Accounts whose held amount is not the amount and fee of their open transfers (ledger:verify). */
export async function holdMismatches(db: Kysely<Database>) {
  const rows = await db
    .selectFrom('virtual_accounts as a')
    .leftJoin('transfers as t', (join) =>
      join.onRef('t.account_id', '=', 'a.id').on('t.status', 'in', ['pending', 'processing']),
    )
    .select([
      'a.id',
      'a.account_number',
      'a.held_kobo',
      sql<number>`cast(coalesce(sum(t.amount_kobo + t.fee_kobo), 0) as bigint)`.as('open_kobo'),
    ])
    .groupBy(['a.id', 'a.account_number', 'a.held_kobo'])
    .having(sql<boolean>`coalesce(sum(t.amount_kobo + t.fee_kobo), 0) <> a.held_kobo`)
    .execute();
  return rows.map((row) => ({
    account_id: row.id,
    account_number: row.account_number,
    held_kobo: Number(row.held_kobo),
    open_transfers_kobo: Number(row.open_kobo),
  }));
}

/**
 * What accepting a transfer reads first, in one statement: the caller's source account and, when the
 * request names one, its name enquiry if still good (not older than `notBefore`). Undefined when the
 * partner has no such account in the environment.
 */
export type SourceAndEnquiry = NonNullable<Awaited<ReturnType<typeof sourceAndEnquiry>>>;

export async function sourceAndEnquiry(
  db: Kysely<Database>,
  scope: PartnerScope,
  accountNumber: string,
  enquiry: { ref: string; notBefore: number } | undefined,
) {
  const rows = await sourceWithEnquiry(
    db,
    scope.partnerId,
    scope.environment,
    accountNumber,
    enquiry?.ref ?? '',
    enquiry?.notBefore ?? Number.MAX_SAFE_INTEGER,
  );
  const row = rows[0];
  if (!row) return undefined;
  const { ne_ref, ne_bank_code, ne_account_number, ne_account_name, ne_bank_ref, ...account } = row;
  return {
    account: account as Selectable<Database['virtual_accounts']>,
    enquiry:
      ne_ref === null
        ? undefined
        : {
            ref: ne_ref,
            bank_code: ne_bank_code as string,
            account_number: ne_account_number as string,
            account_name: ne_account_name as string,
            bank_ref: ne_bank_ref,
          },
  };
}

// Compiled once: every transfer starts here.
const sourceWithEnquiry = prepare(
  (db, partnerId: number, environment: Environment, accountNumber: string, ref: string, notBefore: number) =>
    db
      .selectFrom('virtual_accounts as a')
      .leftJoin('name_enquiries as n', (join) =>
        join
          .on('n.ref', '=', ref)
          .onRef('n.environment', '=', 'a.environment')
          .on('n.created_at', '>=', notBefore),
      )
      .selectAll('a')
      .select([
        'n.ref as ne_ref',
        'n.bank_code as ne_bank_code',
        'n.account_number as ne_account_number',
        'n.account_name as ne_account_name',
        'n.bank_ref as ne_bank_ref',
      ])
      .where('a.partner_id', '=', partnerId)
      .where('a.environment', '=', environment)
      .where('a.account_number', '=', accountNumber),
  5,
);

/**
 * The transfers the worker still owes a step (to send, to ask the bank about), counted up to `cap`,
 * and the earliest time one is due: both on the partial index transfers_due.
 */
export async function backlog(db: Kysely<Database>, cap: number) {
  const [counted, earliest] = await Promise.all([
    db
      .selectFrom((eb) =>
        eb.selectFrom('transfers').select('id').where('next_query_at', 'is not', null).limit(cap).as('owed'),
      )
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('transfers')
      .select((eb) => eb.fn.min('next_query_at').as('due'))
      .where('next_query_at', 'is not', null)
      .executeTakeFirstOrThrow(),
  ]);
  return { pending: Number(counted.count), earliestDue: earliest.due === null ? null : Number(earliest.due) };
}

/**
 * How many transfers are in each status, each counted up to `cap`: one range of the (status, id)
 * index per status, so the cost is bounded by the cap whatever the table's size (metrics). The
 * status and the cap are literals, a statement each: with parameters PostgreSQL's generic plan
 * scanned the table for a rare status (589 ms a scrape at a million transfers).
 */
export async function countByStatus(db: Kysely<Database>, statuses: readonly TransferStatus[], cap: number) {
  const counts = await Promise.all(
    statuses.map((status) =>
      db
        .selectFrom((eb) =>
          eb
            .selectFrom('transfers')
            .select('id')
            .where('status', '=', knownValue(status))
            .limit(sql.lit(cap))
            .as('counted'),
        )
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirstOrThrow(),
    ),
  );
  return new Map(statuses.map((status, index) => [status, Number(counts[index]!.count)]));
}
