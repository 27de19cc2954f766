import type { Kysely } from 'kysely';
import { type AuditActor, actorOf, type RequestMeta } from '../../platform/audit/audit.repository.js';
import type { AuditedWrite, BatchContext } from '../../platform/audit/audited-write.js';
import { type PartnerCredential, scopeKey, scopeOf } from '../../platform/auth/credentials.js';
import { partnerIdOf } from '../../platform/auth/key-check.js';
import type { Clock } from '../../platform/clock.js';
import type { KeyRing } from '../../platform/crypto/keys.js';
import { newId } from '../../platform/crypto/tokens.js';
import type { Database } from '../../platform/db/schema.js';
import type { Environment } from '../../platform/environment.js';
import { AppError, bankUnavailable, validationError } from '../../platform/errors/errors.js';
import { extend } from '../../platform/objects.js';
import { keysetCursor } from '../../platform/pagination/cursor.js';
import { createdRange, dayRange } from '../../platform/time-range.js';
import * as ledger from '../virtual-accounts/ledger.repository.js';
import { koboToDecimal, nairaToKobo } from '../virtual-accounts/money.js';
import type { VirtualAccountEventType } from '../virtual-accounts/virtual-accounts.events.js';
import * as accounts from '../virtual-accounts/virtual-accounts.repository.js';
import { accountView, transactionView } from '../virtual-accounts/virtual-accounts.views.js';
import { NIP_BANKS_BY_CODE } from './banks.js';
import { nipFeeKobo } from './fees.js';
import type { Rail } from './rail.js';
import type { TransferEventType } from './transfers.events.js';
import * as repo from './transfers.repository.js';
import {
  type AdminTransferListQuery,
  type CreateTransferBody,
  type DailyReportQuery,
  MAX_TRANSFER_KOBO,
  NAME_ENQUIRY_TTL_MS,
  type NameEnquiryBody,
  type TransferListQuery,
} from './transfers.schemas.js';
import { TRANSFER_STATUSES, type TransferKind, type TransferStatus } from './transfers.table.js';
import { transferView, transferViewOf, transferViews } from './transfers.views.js';

export interface TransfersDeps {
  db: Kysely<Database>;
  write: AuditedWrite<TransferEventType | VirtualAccountEventType>;
  keys: KeyRing;
  clock: Clock;
  bankCodes: Record<Environment, string>;
  bankName: string;
  /** The rail of an environment: the sandbox bank, or the sponsor bank's connector. */
  railFor(environment: Environment): Rail;
  /** A transfer was accepted: the worker should look now. */
  wakeWorker(): void;
}

export type TransfersService = ReturnType<typeof createTransfersService>;

/** A transfer still open this long after it was accepted is shown to operators as stuck. */
export const STUCK_AFTER_MS = 10 * 60 * 1000;

/** Transfers read at a time by an export. */
const EXPORT_PAGE = 1000;

/** A beneficiary a name enquiry resolved. */
interface Beneficiary {
  bankCode: string;
  bankName: string;
  accountNumber: string;
  accountName: string;
  ref: string;
  bankRef: string | null;
  /** A book transfer's receiving account. */
  account: accounts.VirtualAccountRow | undefined;
}

/** A transfer a request asks for, once its source and beneficiary are known. */
interface NewTransfer {
  credential: PartnerCredential;
  source: accounts.VirtualAccountRow;
  beneficiary: Beneficiary;
  reference: string;
  narration: string;
  amountKobo: number;
}

/** The other side of a book transfer's entry. */
const partyOf = (account: accounts.VirtualAccountRow): ledger.Counterparty => ({
  account_name: account.account_name,
  account_number: account.account_number,
  bank_code: account.bank_code,
  bank_name: account.bank_name,
});

/** A new transfer's row (one literal: see src/platform/objects.ts). */
function transferRow(
  transfer: NewTransfer,
  state: {
    id: string;
    kind: TransferKind;
    status: TransferStatus;
    feeKobo: number;
    beneficiaryAccountId: string | null;
    sentAt: number | null;
    nextQueryAt: number | null;
    now: number;
  },
) {
  const { beneficiary, source } = transfer;
  return {
    id: state.id,
    // A key taken from the cache is checked by this insert (partnerIdOf).
    partner_id: partnerIdOf(transfer.credential),
    environment: transfer.credential.environment,
    account_id: source.id,
    source_account_number: source.account_number,
    source_account_name: source.account_name,
    reference: transfer.reference,
    kind: state.kind,
    status: state.status,
    amount_kobo: transfer.amountKobo,
    fee_kobo: state.feeKobo,
    beneficiary_account_name: beneficiary.accountName,
    beneficiary_account_number: beneficiary.accountNumber,
    beneficiary_bank_code: beneficiary.bankCode,
    beneficiary_bank_name: beneficiary.bankName,
    beneficiary_account_id: state.beneficiaryAccountId,
    narration: transfer.narration,
    name_enquiry_ref: beneficiary.ref,
    bank_name_enquiry_ref: beneficiary.bankRef,
    session_id: null,
    failure_reason: null,
    response_code: null,
    sent_at: state.sentAt,
    next_query_at: state.nextQueryAt,
    query_attempts: 0,
    created_at: state.now,
    updated_at: state.now,
  };
}

/**
 * Money out (docs/partner-guide.md, "Sending money"). Accepting a transfer holds its amount and fee
 * on the source account with the rows that write it (one UPDATE under the row lock checks the
 * available balance; on PostgreSQL the hold and the rows are one statement); settlement.ts, driven
 * by the worker (transfers.worker.ts), hands it to the bank once and applies the bank's answers. A
 * book transfer (to another account of this institution) never leaves the ledger: it is settled at
 * once, in one transaction. Lists, and the operator's list and daily report, are here too.
 */
export function createTransfersService(deps: TransfersDeps) {
  const { db, write, keys, clock, bankCodes, bankName } = deps;

  /** The banks a transfer can reach from `environment`: the NIP list and this institution. */
  function banks(environment: Environment) {
    const own = { code: bankCodes[environment], name: bankName };
    return [own, ...[...NIP_BANKS_BY_CODE.values()].filter((bank) => bank.code !== own.code)]
      .map((bank) => ({ code: bank.code, name: bank.name }))
      .sort((a, b) => a.name.localeCompare(b.name, 'en'));
  }

  function bankNameOf(environment: Environment, code: string): string {
    if (code === bankCodes[environment]) return bankName;
    const bank = NIP_BANKS_BY_CODE.get(code);
    if (!bank) {
      throw validationError({
        bank_code: ['is not a bank a transfer can reach: see GET /services/banks'],
      });
    }
    return bank.name;
  }

  /**
   * Who holds an account: at this institution's own code, a virtual account of the environment
   * (any partner's) that is not closed; elsewhere the rail's answer, reused for 30 minutes.
   */
  async function enquire(
    environment: Environment,
    bankCode: string,
    accountNumber: string,
  ): Promise<Beneficiary> {
    const name = bankNameOf(environment, bankCode);
    const now = clock.now();
    if (bankCode === bankCodes[environment]) {
      const account = await accounts.findAccountByKey(db, { bankCode, accountNumber, environment });
      if (!account || account.status === 'closed') throw new AppError('BENEFICIARY_NOT_FOUND');
      const ref = newId();
      await db
        .insertInto('name_enquiries')
        .values({
          ref,
          environment,
          bank_code: bankCode,
          account_number: accountNumber,
          account_name: account.account_name,
          bank_ref: null,
          created_at: now,
        })
        .execute();
      return {
        bankCode,
        bankName: name,
        accountNumber,
        accountName: account.account_name,
        ref,
        bankRef: null,
        account,
      };
    }
    const cached = await repo.latestNameEnquiry(
      db,
      environment,
      bankCode,
      accountNumber,
      now - NAME_ENQUIRY_TTL_MS,
    );
    if (cached) {
      return {
        bankCode,
        bankName: name,
        accountNumber,
        accountName: cached.account_name,
        ref: cached.ref,
        bankRef: cached.bank_ref,
        account: undefined,
      };
    }
    const answer = await deps.railFor(environment).nameEnquiry(bankCode, accountNumber);
    if (answer.outcome === 'not_found') {
      throw new AppError('BENEFICIARY_NOT_FOUND', {
        message: `${name} does not know account ${accountNumber} (response code ${answer.responseCode}).`,
      });
    }
    if (answer.outcome === 'unavailable') throw bankUnavailable(answer.reason);
    const ref = newId();
    await db
      .insertInto('name_enquiries')
      .values({
        ref,
        environment,
        bank_code: bankCode,
        account_number: accountNumber,
        account_name: answer.accountName,
        bank_ref: answer.bankRef,
        created_at: clock.now(),
      })
      .execute();
    return {
      bankCode,
      bankName: name,
      accountNumber,
      accountName: answer.accountName,
      ref,
      bankRef: answer.bankRef,
      account: undefined,
    };
  }

  async function nameEnquiry(credential: PartnerCredential, body: NameEnquiryBody) {
    const found = await enquire(credential.environment, body.bank_code, body.account_number);
    return {
      bank_code: found.bankCode,
      bank_name: found.bankName,
      account_number: found.accountNumber,
      account_name: found.accountName,
      name_enquiry_ref: found.ref,
    };
  }

  /** The beneficiary a request's name enquiry (read with its source) names, if it fits the request. */
  function knownBeneficiary(
    environment: Environment,
    body: CreateTransferBody,
    known: repo.SourceAndEnquiry['enquiry'],
  ): Beneficiary | undefined {
    if (!known || known.bank_code !== body.bank_code || known.account_number !== body.account_number) {
      return undefined;
    }
    return {
      bankCode: known.bank_code,
      bankName: bankNameOf(environment, known.bank_code),
      accountNumber: known.account_number,
      accountName: known.account_name,
      ref: known.ref,
      bankRef: known.bank_ref,
      account: undefined,
    };
  }

  function amountOf(amount: number | string): number {
    const kobo = nairaToKobo(amount);
    if (kobo === undefined)
      throw validationError({ amount: ['must be a naira amount with at most 2 decimals'] });
    if (kobo <= 0) throw validationError({ amount: ['must be greater than 0'] });
    if (kobo > MAX_TRANSFER_KOBO)
      throw validationError({ amount: [`must be at most ${koboToDecimal(MAX_TRANSFER_KOBO)}`] });
    return kobo;
  }

  const views = (rows: readonly repo.TransferRow[]) => transferViews(db, rows);
  const viewOf = (row: repo.TransferRow) => transferViewOf(db, row);

  async function duplicateOf(
    credential: PartnerCredential,
    reference: string,
  ): Promise<AppError | undefined> {
    const existing = await repo.findByReference(db, scopeOf(credential), reference);
    if (!existing) return undefined;
    return new AppError('DUPLICATE_REFERENCE', { data: await viewOf(existing) });
  }

  /** Why an account could not give `amountKobo`: read after its UPDATE matched nothing. */
  async function debitRefusal(reader: Kysely<Database>, accountId: string, amountKobo: number) {
    const account = await accounts.findAccountById(reader, accountId);
    if (account.status === 'inactive') return new AppError('ACCOUNT_INACTIVE');
    if (account.status === 'closed') return new AppError('ACCOUNT_CLOSED');
    const availableKobo = Number(account.balance_kobo) - Number(account.held_kobo);
    return new AppError('INSUFFICIENT_FUNDS', {
      message: `The amount plus the fee (NGN ${koboToDecimal(amountKobo)}) is more than the available balance (NGN ${koboToDecimal(availableKobo)}).`,
    });
  }

  /** Records that a transfer entered `status` (its history), in the transaction that moved it. */
  function recordStatus(
    context: BatchContext,
    transferId: string,
    status: TransferStatus,
    reason: string | null,
    at: number,
  ) {
    context.insert('transfer_status_changes', { id: newId(), transfer_id: transferId, status, reason, at });
  }

  /**
   * Accepts a transfer (202): the source is the caller's own active account; the beneficiary is
   * named by the bank (or a name_enquiry_ref still good for it) before anything moves; the amount
   * and fee are held in the transaction that writes the transfer, and the worker takes it from
   * there. A reference used before in the environment is 409 DUPLICATE_REFERENCE (a unique index
   * decides, across instances). To this institution's own code it is a book transfer, settled at once.
   */
  async function create(credential: PartnerCredential, body: CreateTransferBody, meta: RequestMeta) {
    const amountKobo = amountOf(body.amount);
    // A book transfer always looks again (the account's status decides, not a 30-minute-old answer),
    // so only an interbank transfer's name_enquiry_ref is read, with the source, in one statement.
    const ownBank = body.bank_code === bankCodes[credential.environment];
    const read = await repo.sourceAndEnquiry(
      db,
      scopeOf(credential),
      body.source_account_number,
      body.name_enquiry_ref === undefined || ownBank
        ? undefined
        : { ref: body.name_enquiry_ref, notBefore: clock.now() - NAME_ENQUIRY_TTL_MS },
    );
    const source = read?.account;
    if (!source) {
      throw new AppError('NOT_FOUND', {
        message: 'No virtual account of yours has this number in this environment.',
      });
    }
    if (source.status !== 'active')
      throw new AppError(source.status === 'inactive' ? 'ACCOUNT_INACTIVE' : 'ACCOUNT_CLOSED');
    if (body.bank_code === source.bank_code && body.account_number === source.account_number) {
      throw validationError({ account_number: ['is the source account itself'] });
    }
    let beneficiary = knownBeneficiary(credential.environment, body, read?.enquiry);
    if (!beneficiary) {
      // Before asking the bank: a retry of a transfer that exists must hear so (409 with it), not a
      // name-enquiry failure that says nothing was debited. Otherwise the unique index decides.
      const duplicate = await duplicateOf(credential, body.reference);
      if (duplicate) throw duplicate;
      beneficiary = await enquire(credential.environment, body.bank_code, body.account_number);
    }
    const transfer: NewTransfer = {
      credential,
      source,
      beneficiary,
      reference: body.reference,
      narration: body.narration ?? body.reference,
      amountKobo,
    };
    const options = {
      actor: actorOf(credential),
      meta,
      onUniqueViolation: () => duplicateOf(credential, body.reference),
    };
    if (beneficiary.account) return bookTransfer(transfer, beneficiary.account, options);

    const feeKobo = nipFeeKobo(amountKobo);
    const total = amountKobo + feeKobo;
    // The hold (one conditional UPDATE under the account's lock) and the transfer's rows with its
    // audit event: one statement on PostgreSQL, a transaction on SQLite (AuditedWrite.guarded).
    const accepted = await write.guarded(
      options,
      ledger.holdGuard(source.id, total),
      (context) => {
        const { now, insert, audit } = context;
        const row = transferRow(transfer, {
          id: newId(),
          kind: 'interbank',
          status: 'pending',
          feeKobo,
          beneficiaryAccountId: null,
          sentAt: null,
          // Due at once: the worker hands it to the bank.
          nextQueryAt: now,
          now,
        });
        insert('transfers', row);
        recordStatus(context, row.id, 'pending', null, now);
        audit({
          action: 'transfer.created',
          targetType: 'transfer',
          targetId: row.id,
          metadata: {
            reference: row.reference,
            source_account_number: row.source_account_number,
            amount_kobo: amountKobo,
            fee_kobo: feeKobo,
            bank_code: row.beneficiary_bank_code,
            account_number: row.beneficiary_account_number,
          },
        });
        return transferView(row, [{ status: 'pending', at: now }]);
      },
      () => debitRefusal(db, source.id, total),
    );
    deps.wakeWorker();
    return accepted;
  }

  /**
   * A transfer to another account of this institution in the same environment: no fee, and both
   * entries (the source's debit, the beneficiary's credit, kind book_transfer) with the transfer,
   * already successful, in one transaction. The two accounts are updated in id order, so two book
   * transfers between the same accounts in opposite directions cannot deadlock.
   */
  async function bookTransfer(
    transfer: NewTransfer,
    target: accounts.VirtualAccountRow,
    options: { actor: AuditActor; meta: RequestMeta; onUniqueViolation: () => Promise<AppError | undefined> },
  ) {
    const { credential, source, amountKobo, narration } = transfer;
    return write(options, async (context) => {
      const { trx, now, insert, audit, emit } = context;
      const row = transferRow(transfer, {
        id: newId(),
        kind: 'book',
        status: 'successful',
        feeKobo: 0,
        beneficiaryAccountId: target.id,
        sentAt: now,
        nextQueryAt: null,
        now,
      });
      const id = row.id;
      const debit = async () => {
        const posted = await ledger.postToAccount(trx, { id: source.id }, { type: 'debit', amountKobo }, now);
        if (!posted) throw await debitRefusal(trx, source.id, amountKobo);
        return posted;
      };
      const credit = async () => {
        const posted = await ledger.postToAccount(
          trx,
          { id: target.id },
          { type: 'credit', amountKobo },
          now,
        );
        if (posted) return posted;
        const current = await accounts.lockAccount(trx, target.id);
        if (current.status === 'inactive') {
          throw new AppError('ACCOUNT_INACTIVE', {
            message: 'The beneficiary account is inactive: it takes no credits.',
          });
        }
        throw new AppError('BENEFICIARY_NOT_FOUND', { message: 'The beneficiary account is closed.' });
      };
      let debited: ledger.PostedAccount;
      let credited: ledger.PostedAccount;
      if (source.id < target.id) {
        debited = await debit();
        credited = await credit();
      } else {
        credited = await credit();
        debited = await debit();
      }
      insert(
        'account_transactions',
        ledger.entryRow(debited, {
          id: newId(),
          type: 'debit',
          kind: 'book_transfer',
          amountKobo,
          narration,
          reference: `TRF-${id}`,
          counterparty: partyOf(target),
          sessionId: null,
          transferId: id,
        }),
      );
      const creditEntry = ledger.entryRow(credited, {
        id: newId(),
        type: 'credit',
        kind: 'book_transfer',
        amountKobo,
        narration,
        reference: `BOOK-${id}`,
        counterparty: partyOf(source),
        sessionId: null,
        transferId: id,
      });
      insert('account_transactions', creditEntry);
      insert('transfers', row);
      recordStatus(context, id, 'pending', null, now);
      recordStatus(context, id, 'successful', null, now);
      const view = transferView(row, [
        { status: 'pending', at: now },
        { status: 'successful', at: now },
      ]);
      audit({
        action: 'transfer.successful',
        targetType: 'transfer',
        targetId: id,
        metadata: {
          reference: row.reference,
          kind: 'book',
          source_account_number: source.account_number,
          account_number: target.account_number,
          amount_kobo: amountKobo,
        },
      });
      emit({ environments: [credential.environment], type: 'transfer.successful', data: view });
      audit({
        partnerId: target.partner_id,
        action: 'virtual_account.credited',
        targetType: 'virtual_account',
        targetId: target.id,
        metadata: {
          account_number: target.account_number,
          amount_kobo: amountKobo,
          reference: creditEntry.reference,
        },
      });
      emit({
        partnerId: target.partner_id,
        environments: [target.environment],
        type: 'virtual_account.credited',
        data: { transaction: transactionView(creditEntry), account: accountView(credited) },
      });
      return view;
    });
  }

  async function get(credential: PartnerCredential, id: string) {
    const row = await repo.findOwn(db, scopeOf(credential), id);
    if (!row)
      throw new AppError('NOT_FOUND', { message: 'No transfer of yours has this id in this environment.' });
    return viewOf(row);
  }

  function transferFilter(query: TransferListQuery): repo.TransferFilter {
    const range = createdRange(query);
    return {
      status: query.status,
      sourceAccountNumber: query.source_account_number,
      reference: query.reference,
      createdFrom: range.from,
      createdTo: range.to,
    };
  }

  async function list(credential: PartnerCredential, query: TransferListQuery) {
    const filter = transferFilter(query);
    const cursor = keysetCursor(
      keys.cursor,
      'transfers',
      `${scopeKey(credential)}:${JSON.stringify(filter)}`,
      'string',
    );
    const beforeId = cursor.decode(query.cursor);
    const rows = await repo.listOwn(
      db,
      scopeOf(credential),
      extend(filter, { beforeId, limit: query.limit }),
    );
    const page = cursor.page(rows, query.limit, (row) => row.id);
    return { items: await views(page.items), next_cursor: page.next_cursor };
  }

  /**
   * Every transfer the list's filter matches, newest first, not one page: read a keyset page at a
   * time (the cursor and limit of the query are ignored), so an export of any size holds one page.
   * Without status histories: a CSV row has no place for them.
   */
  async function* exportPages(credential: PartnerCredential, query: TransferListQuery) {
    const filter = transferFilter(query);
    const scope = scopeOf(credential);
    let beforeId: string | undefined;
    for (;;) {
      const rows = await repo.listOwn(db, scope, extend(filter, { beforeId, limit: EXPORT_PAGE }));
      const page = rows.slice(0, EXPORT_PAGE);
      yield page.map((row) => transferView(row, []));
      if (rows.length <= EXPORT_PAGE) return;
      beforeId = page.at(-1)?.id;
    }
  }

  // ---- Back office ----

  async function listAll(query: AdminTransferListQuery) {
    const now = clock.now();
    const filter = {
      status: query.status,
      partnerId: query.company_id,
      environment: query.environment,
      stuck: query.stuck,
    };
    const cursor = keysetCursor(keys.cursor, 'admin_transfers', JSON.stringify(filter), 'string');
    const beforeId = cursor.decode(query.cursor);
    const rows = await repo.listAll(db, {
      status: filter.status,
      partnerId: filter.partnerId,
      environment: filter.environment,
      stuckBefore: filter.stuck ? now - STUCK_AFTER_MS : undefined,
      beforeId,
      limit: query.limit,
    });
    const page = cursor.page(rows, query.limit, (row) => row.id);
    const items = await views(page.items);
    return {
      items: items.map((view, index) => {
        const row = page.items[index] as (typeof page.items)[number];
        return extend(view, {
          company_id: row.partner_id,
          business_name: row.business_name,
          response_code: row.response_code,
          next_query_at:
            row.next_query_at === null ? null : new Date(Number(row.next_query_at)).toISOString(),
          query_attempts: row.query_attempts,
          stuck:
            (row.status === 'pending' || row.status === 'processing') &&
            Number(row.created_at) < now - STUCK_AFTER_MS,
        });
      }),
      next_cursor: page.next_cursor,
    };
  }

  /**
   * The operator's reconciliation for one UTC day of an environment: inbound credits booked that
   * day, transfers created that day by their status now, fees debited that day, and the sum of every
   * account's balance at the day's end (to compare with the bank's statement of the settlement account).
   */
  async function dailyReport(query: DailyReportQuery) {
    const day = dayRange(query.date, query.date, 1);
    const figures = await repo.dailyFigures(db, query.environment, day);
    const tally = (count = 0, amount = 0) => ({ count: Number(count), amount_kobo: Number(amount) });
    const inbound = figures.entries.find((row) => row.kind === 'inbound_transfer');
    const fees = figures.entries.find((row) => row.kind === 'fee');
    return {
      date: query.date,
      environment: query.environment,
      inbound: tally(inbound?.count, inbound?.amount_kobo),
      transfers: Object.fromEntries(
        TRANSFER_STATUSES.map((status) => {
          const row = figures.transfers.find((candidate) => candidate.status === status);
          return [status, tally(row?.count, row?.amount_kobo)];
        }),
      ) as Record<TransferStatus, { count: number; amount_kobo: number }>,
      fees_kobo: Number(fees?.amount_kobo ?? 0),
      balances_kobo: figures.balancesKobo,
    };
  }

  return {
    banks,
    nameEnquiry,
    create,
    get,
    list,
    exportPages,
    listAll,
    dailyReport,
    purgeNameEnquiries: () => repo.purgeNameEnquiries(db, clock.now() - NAME_ENQUIRY_TTL_MS),
  };
}
