import type { Transaction as DbTransaction, Kysely } from 'kysely';
import type { Logger } from 'pino';
import { type AuditActor, actorOf, type RequestMeta } from '../../platform/audit/audit.repository.js';
import type { AuditedWrite, WriteContext } from '../../platform/audit/audited-write.js';
import { type PartnerCredential, scopeKey, scopeOf } from '../../platform/auth/credentials.js';
import { partnerIdOf } from '../../platform/auth/key-check.js';
import type { Clock } from '../../platform/clock.js';
import type { KeyRing } from '../../platform/crypto/keys.js';
import { newId } from '../../platform/crypto/tokens.js';
import type { Database } from '../../platform/db/schema.js';
import type { Environment } from '../../platform/environment.js';
import { AppError, bankUnavailable, validationError } from '../../platform/errors/errors.js';
import { keysetCursor } from '../../platform/pagination/cursor.js';
import { createdRange, dayRange } from '../../platform/time-range.js';
import * as ledger from '../virtual-accounts/ledger.repository.js';
import { koboToDecimal, nairaToKobo } from '../virtual-accounts/money.js';
import type { VirtualAccountEventType } from '../virtual-accounts/virtual-accounts.events.js';
import * as accounts from '../virtual-accounts/virtual-accounts.repository.js';
import { accountView, transactionView } from '../virtual-accounts/virtual-accounts.views.js';
import { NIP_BANKS_BY_CODE } from './banks.js';
import { nipFeeKobo } from './fees.js';
import type { OutboundTransfer, Rail, TransferAnswer } from './rail.js';
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
import { TRANSFER_STATUSES, type TransferStatus } from './transfers.table.js';
import { type TransferView, transferView } from './transfers.views.js';

export interface TransfersDeps {
  db: Kysely<Database>;
  write: AuditedWrite<TransferEventType | VirtualAccountEventType>;
  keys: KeyRing;
  clock: Clock;
  log: Logger;
  bankCodes: Record<Environment, string>;
  bankName: string;
  /** The rail of an environment: the sandbox bank, or the sponsor bank's connector. */
  railFor(environment: Environment): Rail;
  /** TRANSFER_REQUERY_MS: the first status query's delay, doubling after each. */
  requeryMs: number;
  /** A transfer was accepted: the worker should look now. */
  wakeWorker(): void;
}

export type TransfersService = ReturnType<typeof createTransfersService>;

/** Status queries stop this long after the transfer was sent: it then waits for an operator. */
export const QUERY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** The longest wait between two status queries. */
const MAX_QUERY_INTERVAL_MS = 60 * 60 * 1000;
/** A transfer still open this long after it was accepted is shown to operators as stuck. */
export const STUCK_AFTER_MS = 10 * 60 * 1000;

/** Who moves a transfer after it was accepted: the worker, on the bank's word. */
const WORKER_ACTOR: AuditActor = { partnerId: null, actorType: 'system', actorId: 'transfer_worker' };
/** The sponsor bank's connector, when it reports on a transfer itself. */
export const CONNECTOR_ACTOR: AuditActor = {
  partnerId: null,
  actorType: 'system',
  actorId: 'bank_connector',
};

/** Delay of status query n+1 after n: requeryMs, doubling, at most an hour. */
export const queryDelayMs = (requeryMs: number, attempts: number): number =>
  Math.min(requeryMs * 2 ** Math.min(attempts, 30), Math.max(requeryMs, MAX_QUERY_INTERVAL_MS));

/** What every transfer row of a request has, whatever its kind. */
type TransferBase = { partner_id: ReturnType<typeof partnerIdOf> } & Omit<
  repo.TransferRow,
  | 'partner_id'
  | 'id'
  | 'kind'
  | 'status'
  | 'fee_kobo'
  | 'beneficiary_account_id'
  | 'session_id'
  | 'sent_at'
  | 'next_query_at'
  | 'created_at'
  | 'updated_at'
>;

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

/**
 * Money out (docs/partner-guide.md, "Sending money"). Accepting a transfer holds its amount and fee
 * on the source account in the transaction that writes it (one UPDATE under the row lock checks the
 * available balance); the worker (transfers.worker.ts) hands it to the bank once and asks for its
 * status until the bank's answer is definite; each move of its state is one conditional UPDATE, with
 * its entries, history, audit and event in the same transaction. A book transfer (to another account
 * of this institution) never leaves the ledger: it is settled at once, in one transaction.
 */
export function createTransfersService(deps: TransfersDeps) {
  const { db, write, keys, clock, log, bankCodes, bankName, requeryMs } = deps;

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

  /** The beneficiary of a transfer: from a name_enquiry_ref still good for it, or a new enquiry. */
  async function beneficiaryOf(
    credential: PartnerCredential,
    body: CreateTransferBody,
  ): Promise<Beneficiary> {
    const environment = credential.environment;
    const ownBank = body.bank_code === bankCodes[environment];
    if (body.name_enquiry_ref !== undefined && !ownBank) {
      const known = await repo.findNameEnquiry(
        db,
        environment,
        body.name_enquiry_ref,
        clock.now() - NAME_ENQUIRY_TTL_MS,
      );
      if (known && known.bank_code === body.bank_code && known.account_number === body.account_number) {
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
    }
    // A book transfer always looks again: the account's status decides, not a 30-minute-old answer.
    return enquire(environment, body.bank_code, body.account_number);
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

  async function views(rows: readonly repo.TransferRow[]): Promise<TransferView[]> {
    const histories = await repo.historiesOf(
      db,
      rows.map((row) => row.id),
    );
    return rows.map((row) => transferView(row, histories.get(row.id) ?? []));
  }

  const viewOf = async (row: repo.TransferRow): Promise<TransferView> =>
    (await views([row]))[0] as TransferView;

  async function duplicateOf(
    credential: PartnerCredential,
    reference: string,
  ): Promise<AppError | undefined> {
    const existing = await repo.findByReference(db, scopeOf(credential), reference);
    if (!existing) return undefined;
    return new AppError('DUPLICATE_REFERENCE', { data: await viewOf(existing) });
  }

  /** Why an account could not give `amountKobo`: read under the transaction, after its UPDATE matched nothing. */
  async function debitRefusal(trx: DbTransaction<Database>, accountId: string, amountKobo: number) {
    const account = await accounts.lockAccount(trx, accountId);
    if (account.status === 'inactive') return new AppError('ACCOUNT_INACTIVE');
    if (account.status === 'closed') return new AppError('ACCOUNT_CLOSED');
    const availableKobo = Number(account.balance_kobo) - Number(account.held_kobo);
    return new AppError('INSUFFICIENT_FUNDS', {
      message: `The amount plus the fee (NGN ${koboToDecimal(amountKobo)}) is more than the available balance (NGN ${koboToDecimal(availableKobo)}).`,
    });
  }

  /** Records that a transfer entered `status` (its history), in the transaction that moved it. */
  function recordStatus(
    context: WriteContext,
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
    const source = await accounts.findAccountByNumber(db, scopeOf(credential), body.source_account_number);
    if (!source) {
      throw new AppError('NOT_FOUND', {
        message: 'No virtual account of yours has this number in this environment.',
      });
    }
    if (source.status !== 'active')
      throw new AppError(source.status === 'inactive' ? 'ACCOUNT_INACTIVE' : 'ACCOUNT_CLOSED');
    const duplicate = await duplicateOf(credential, body.reference);
    if (duplicate) throw duplicate;
    if (body.bank_code === source.bank_code && body.account_number === source.account_number) {
      throw validationError({ account_number: ['is the source account itself'] });
    }
    const beneficiary = await beneficiaryOf(credential, body);
    const narration = body.narration ?? body.reference;
    const options = {
      actor: actorOf(credential),
      meta,
      onUniqueViolation: () => duplicateOf(credential, body.reference),
    };
    const base: TransferBase = {
      partner_id: partnerIdOf(credential),
      environment: credential.environment,
      account_id: source.id,
      source_account_number: source.account_number,
      source_account_name: source.account_name,
      reference: body.reference,
      amount_kobo: amountKobo,
      beneficiary_account_name: beneficiary.accountName,
      beneficiary_account_number: beneficiary.accountNumber,
      beneficiary_bank_code: beneficiary.bankCode,
      beneficiary_bank_name: beneficiary.bankName,
      narration,
      name_enquiry_ref: beneficiary.ref,
      bank_name_enquiry_ref: beneficiary.bankRef,
      failure_reason: null,
      response_code: null,
      query_attempts: 0,
    };
    if (beneficiary.account) {
      return bookTransfer(credential, source, beneficiary.account, base, { amountKobo, narration }, options);
    }

    const feeKobo = nipFeeKobo(amountKobo);
    const transfer = await write(options, async (context) => {
      const { trx, now, insert, audit } = context;
      const held = await ledger.holdOnAccount(trx, source.id, amountKobo + feeKobo);
      if (!held) throw await debitRefusal(trx, source.id, amountKobo + feeKobo);
      const row = {
        ...base,
        id: newId(),
        kind: 'interbank' as const,
        status: 'pending' as const,
        fee_kobo: feeKobo,
        beneficiary_account_id: null,
        session_id: null,
        sent_at: null,
        // Due at once: the worker hands it to the bank.
        next_query_at: now,
        created_at: now,
        updated_at: now,
      };
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
      return transferView({ ...row, partner_id: credential.partnerId }, [{ status: 'pending', at: now }]);
    });
    deps.wakeWorker();
    return transfer;
  }

  /**
   * A transfer to another account of this institution in the same environment: no fee, and both
   * entries (the source's debit, the beneficiary's credit, kind book_transfer) with the transfer,
   * already successful, in one transaction. The two accounts are updated in id order, so two book
   * transfers between the same accounts in opposite directions cannot deadlock.
   */
  async function bookTransfer(
    credential: PartnerCredential,
    source: accounts.VirtualAccountRow,
    target: accounts.VirtualAccountRow,
    base: TransferBase,
    details: { amountKobo: number; narration: string },
    options: { actor: AuditActor; meta: RequestMeta; onUniqueViolation: () => Promise<AppError | undefined> },
  ) {
    const { amountKobo, narration } = details;
    return write(options, async (context) => {
      const { trx, now, insert, audit, emit } = context;
      const id = newId();
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
      const sourceParty = {
        account_name: source.account_name,
        account_number: source.account_number,
        bank_code: source.bank_code,
        bank_name: source.bank_name,
      };
      const targetParty = {
        account_name: target.account_name,
        account_number: target.account_number,
        bank_code: target.bank_code,
        bank_name: target.bank_name,
      };
      insert(
        'account_transactions',
        ledger.entryRow(debited, {
          id: newId(),
          type: 'debit',
          kind: 'book_transfer',
          amountKobo,
          narration,
          reference: `TRF-${id}`,
          counterparty: targetParty,
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
        counterparty: sourceParty,
        sessionId: null,
        transferId: id,
      });
      insert('account_transactions', creditEntry);
      const row = {
        ...base,
        id,
        kind: 'book' as const,
        status: 'successful' as const,
        fee_kobo: 0,
        beneficiary_account_id: target.id,
        session_id: null,
        sent_at: now,
        next_query_at: null,
        created_at: now,
        updated_at: now,
      };
      insert('transfers', row);
      recordStatus(context, id, 'pending', null, now);
      recordStatus(context, id, 'successful', null, now);
      const view = transferView({ ...row, partner_id: credential.partnerId }, [
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

  async function list(credential: PartnerCredential, query: TransferListQuery) {
    const range = createdRange(query);
    const filter: repo.TransferFilter = {
      status: query.status,
      sourceAccountNumber: query.source_account_number,
      reference: query.reference,
      createdFrom: range.from,
      createdTo: range.to,
    };
    const cursor = keysetCursor(
      keys.cursor,
      'transfers',
      `${scopeKey(credential)}:${JSON.stringify(filter)}`,
      'string',
    );
    const beforeId = cursor.decode(query.cursor);
    const rows = await repo.listOwn(db, scopeOf(credential), { ...filter, beforeId, limit: query.limit });
    const page = cursor.page(rows, query.limit, (row) => row.id);
    return { items: await views(page.items), next_cursor: page.next_cursor };
  }

  // ---- Settlement: the bank's word moves a transfer, once (one conditional UPDATE each) ----

  /** Emits a transfer's event and audits its move, in the transaction that made it. */
  async function announce(
    context: WriteContext<TransferEventType | VirtualAccountEventType>,
    row: repo.TransferRow,
    type: TransferEventType,
    metadata: Record<string, unknown>,
  ): Promise<TransferView> {
    const histories = await repo.historiesOf(context.trx, [row.id]);
    const view = transferView(row, histories.get(row.id) ?? []);
    context.audit({
      partnerId: row.partner_id,
      action: type,
      targetType: 'transfer',
      targetId: row.id,
      metadata: { reference: row.reference, ...metadata },
    });
    context.emit({ partnerId: row.partner_id, environments: [row.environment], type, data: view });
    return view;
  }

  /** Hands a pending transfer to the bank: `processing`, dated, before the rail is called. */
  async function markProcessing(row: repo.TransferRow): Promise<repo.TransferRow | undefined> {
    const { id } = row;
    const firstQueryMs = Math.max(requeryMs, deps.railFor(row.environment).answerWithinMs + 1000);
    return write({ actor: WORKER_ACTOR, meta: null }, async (context) => {
      const row = await repo.move(
        context.trx,
        id,
        ['pending'],
        'processing',
        // A crash after this commit leaves it for the status query, never for a second send.
        { sent_at: context.now, next_query_at: context.now + firstQueryMs },
        context.now,
      );
      if (row) {
        // Written directly: the history row must exist before any settlement reads it.
        await context.trx
          .insertInto('transfer_status_changes')
          .values({ id: newId(), transfer_id: id, status: 'processing', reason: null, at: context.now })
          .execute();
      }
      return row;
    });
  }

  /** processing → successful: the hold becomes the transfer's and the fee's debit entries. */
  async function succeed(
    id: string,
    answer: { sessionId: string | null; responseCode: string | null },
    actor: AuditActor,
    followUpMs: number | null,
  ) {
    return write({ actor, meta: null }, async (context) => {
      const { trx, now } = context;
      const row = await repo.move(
        trx,
        id,
        ['processing'],
        'successful',
        {
          session_id: answer.sessionId,
          response_code: answer.responseCode,
          next_query_at: followUpMs === null ? null : now + followUpMs,
          query_attempts: 0,
        },
        now,
      );
      if (!row) return undefined;
      const amountKobo = Number(row.amount_kobo);
      const feeKobo = Number(row.fee_kobo);
      const beneficiary = {
        account_name: row.beneficiary_account_name,
        account_number: row.beneficiary_account_number,
        bank_code: row.beneficiary_bank_code,
        bank_name: row.beneficiary_bank_name,
      };
      const afterTransfer = await ledger.settleOnAccount(
        trx,
        row.account_id,
        { type: 'debit', amountKobo },
        amountKobo,
        now,
      );
      context.insert(
        'account_transactions',
        ledger.entryRow(afterTransfer, {
          id: newId(),
          type: 'debit',
          kind: 'transfer',
          amountKobo,
          narration: row.narration,
          reference: `TRF-${row.id}`,
          counterparty: beneficiary,
          sessionId: row.session_id,
          transferId: row.id,
        }),
      );
      if (feeKobo > 0) {
        const afterFee = await ledger.settleOnAccount(
          trx,
          row.account_id,
          { type: 'debit', amountKobo: feeKobo },
          feeKobo,
          now,
        );
        context.insert(
          'account_transactions',
          ledger.entryRow(afterFee, {
            id: newId(),
            type: 'debit',
            kind: 'fee',
            amountKobo: feeKobo,
            narration: `NIP fee: ${row.reference}`,
            reference: `FEE-${row.id}`,
            counterparty: null,
            sessionId: null,
            transferId: row.id,
          }),
        );
      }
      await trx
        .insertInto('transfer_status_changes')
        .values({ id: newId(), transfer_id: id, status: 'successful', reason: null, at: now })
        .execute();
      return announce(context, row, 'transfer.successful', {
        session_id: row.session_id,
        response_code: row.response_code,
      });
    });
  }

  /** pending or processing → failed, on a definite answer: the hold is released, nothing is debited. */
  async function fail(
    id: string,
    answer: { responseCode: string | null; reason: string },
    actor: AuditActor,
  ) {
    return write({ actor, meta: null }, async (context) => {
      const { trx, now } = context;
      const row = await repo.move(
        trx,
        id,
        ['pending', 'processing'],
        'failed',
        { failure_reason: answer.reason, response_code: answer.responseCode, next_query_at: null },
        now,
      );
      if (!row) return undefined;
      await ledger.releaseHold(trx, row.account_id, Number(row.amount_kobo) + Number(row.fee_kobo));
      await trx
        .insertInto('transfer_status_changes')
        .values({ id: newId(), transfer_id: id, status: 'failed', reason: answer.reason, at: now })
        .execute();
      return announce(context, row, 'transfer.failed', {
        failure_reason: answer.reason,
        response_code: answer.responseCode,
      });
    });
  }

  /** successful → reversed: the bank returned the money; its amount is credited back (the fee is kept). */
  async function reverse(
    id: string,
    answer: { reason: string; responseCode: string | null },
    actor: AuditActor,
  ) {
    return write({ actor, meta: null }, async (context) => {
      const { trx, now } = context;
      const row = await repo.move(
        trx,
        id,
        ['successful'],
        'reversed',
        {
          failure_reason: answer.reason,
          next_query_at: null,
          ...(answer.responseCode ? { response_code: answer.responseCode } : {}),
        },
        now,
      );
      if (!row) return undefined;
      const amountKobo = Number(row.amount_kobo);
      const after = await ledger.settleOnAccount(trx, row.account_id, { type: 'credit', amountKobo }, 0, now);
      context.insert(
        'account_transactions',
        ledger.entryRow(after, {
          id: newId(),
          type: 'credit',
          kind: 'reversal',
          amountKobo,
          narration: `Reversal: ${row.reference}`,
          reference: `REV-${row.id}`,
          counterparty: {
            account_name: row.beneficiary_account_name,
            account_number: row.beneficiary_account_number,
            bank_code: row.beneficiary_bank_code,
            bank_name: row.beneficiary_bank_name,
          },
          sessionId: null,
          transferId: row.id,
        }),
      );
      await trx
        .insertInto('transfer_status_changes')
        .values({ id: newId(), transfer_id: id, status: 'reversed', reason: answer.reason, at: now })
        .execute();
      return announce(context, row, 'transfer.reversed', { reason: answer.reason });
    });
  }

  /**
   * Applies the bank's answer to a transfer it was handed (processing, or successful awaiting a late
   * reversal): definite answers move it; an unknown one schedules the next status query, backing off
   * from requeryMs until 24 hours after it was sent, then leaves it to operators (still processing:
   * only a definite answer fails it). Returns the transfer's status after.
   */
  async function applyAnswer(
    row: repo.TransferRow,
    answer: TransferAnswer,
    actor: AuditActor,
  ): Promise<void> {
    const rail = deps.railFor(row.environment);
    const outbound = outboundOf(row);
    switch (answer.outcome) {
      case 'successful':
        if (row.status === 'processing') {
          await succeed(row.id, answer, actor, rail.followUpMs?.(outbound) ?? null);
        } else if (row.status === 'successful') {
          // Asked again after success (a late reversal may follow): nothing more to wait for.
          await repo.schedule(
            db,
            row.id,
            'successful',
            { next_query_at: null, query_attempts: 0, response_code: row.response_code },
            clock.now(),
          );
        }
        return;
      case 'failed':
        if (row.status === 'processing') {
          await fail(row.id, answer, actor);
          return;
        }
        log.error(
          { transfer_id: row.id, status: row.status, answer },
          'the bank says a transfer failed after it succeeded',
        );
        return;
      case 'reversed':
        if (row.status === 'processing') await succeed(row.id, answer, actor, null);
        await reverse(row.id, answer, actor);
        return;
      case 'unknown': {
        const now = clock.now();
        const attempts = row.query_attempts + 1;
        const next = now + queryDelayMs(requeryMs, row.query_attempts);
        const deadline = Number(row.sent_at ?? row.created_at) + QUERY_WINDOW_MS;
        if (next > deadline) {
          log.error(
            { transfer_id: row.id, reference: row.reference },
            'a transfer has no definite answer after 24 hours: an operator must settle it with the bank',
          );
        }
        await repo.schedule(
          db,
          row.id,
          row.status,
          {
            next_query_at: next > deadline ? null : next,
            query_attempts: attempts,
            response_code: answer.responseCode ?? row.response_code,
          },
          now,
        );
        return;
      }
    }
  }

  /** A transfer as handed to the bank: our transfer id is the reference it deduplicates on. */
  function outboundOf(row: repo.TransferRow): OutboundTransfer {
    return {
      reference: row.id,
      amountKobo: Number(row.amount_kobo),
      sourceAccountNumber: row.source_account_number,
      sourceAccountName: row.source_account_name,
      bankCode: row.beneficiary_bank_code,
      accountNumber: row.beneficiary_account_number,
      accountName: row.beneficiary_account_name,
      nameEnquiryRef: row.bank_name_enquiry_ref ?? row.name_enquiry_ref,
      narration: row.narration,
    };
  }

  /**
   * The worker's step for a transfer it leased: send a pending one (after recording `processing`),
   * or ask the bank about one it owes an answer for.
   */
  async function advance(row: repo.TransferRow): Promise<void> {
    const rail = deps.railFor(row.environment);
    if (row.status === 'pending') {
      const sent = await markProcessing(row);
      if (!sent) return;
      const answer = await rail.send(outboundOf(sent), Number(sent.sent_at));
      await applyAnswer(sent, answer, WORKER_ACTOR);
      return;
    }
    if (row.status !== 'processing' && row.status !== 'successful') return;
    const succeededAt = row.status === 'successful' ? Number(row.updated_at) : null;
    const answer = await rail.query(outboundOf(row), {
      sentAt: Number(row.sent_at ?? row.created_at),
      succeededAt,
      now: clock.now(),
    });
    await applyAnswer(row, answer, WORKER_ACTOR);
  }

  /**
   * The connector's own word on a live transfer it was handed (POST /bank/transfer-updates): applied
   * in the order the states allow (processing → successful → reversed, processing → failed); a repeat
   * or older news changes nothing (200, `unchanged`); news that contradicts a final state (a failed
   * transfer succeeding) is refused with 409 and logged for an operator.
   */
  async function connectorUpdate(body: {
    reference: string;
    status: 'successful' | 'failed' | 'reversed';
    session_id?: string | undefined;
    response_code?: string | undefined;
    reason?: string | undefined;
  }) {
    const row = await repo.findById(db, body.reference);
    if (!row || row.environment !== 'live' || row.kind !== 'interbank' || row.status === 'pending') {
      throw new AppError('NOT_FOUND', { message: 'No transfer handed to the bank has this reference.' });
    }
    const unchanged = async () => ({
      outcome: 'unchanged' as const,
      transfer: await viewOf((await repo.findById(db, row.id)) ?? row),
    });
    const responseCode = body.response_code ?? null;
    if (body.status === 'successful') {
      if (row.status === 'failed') throw conflict(row, body.status);
      if (row.status !== 'processing') return unchanged();
      const view = await succeed(
        row.id,
        { sessionId: body.session_id ?? row.session_id, responseCode: responseCode ?? '00' },
        CONNECTOR_ACTOR,
        null,
      );
      return view ? { outcome: 'applied' as const, transfer: view } : unchanged();
    }
    if (body.status === 'failed') {
      if (row.status === 'successful' || row.status === 'reversed') throw conflict(row, body.status);
      if (row.status !== 'processing') return unchanged();
      const view = await fail(
        row.id,
        {
          responseCode,
          reason:
            body.reason ??
            (responseCode
              ? `the bank declined the transfer (${responseCode})`
              : 'the bank declined the transfer'),
        },
        CONNECTOR_ACTOR,
      );
      return view ? { outcome: 'applied' as const, transfer: view } : unchanged();
    }
    if (row.status === 'failed') throw conflict(row, body.status);
    if (row.status === 'reversed') return unchanged();
    if (row.status === 'processing') {
      await succeed(
        row.id,
        { sessionId: body.session_id ?? row.session_id, responseCode: '00' },
        CONNECTOR_ACTOR,
        null,
      );
    }
    const view = await reverse(
      row.id,
      { reason: body.reason ?? 'returned by the beneficiary bank', responseCode },
      CONNECTOR_ACTOR,
    );
    return view ? { outcome: 'applied' as const, transfer: view } : unchanged();
  }

  function conflict(row: repo.TransferRow, status: string) {
    log.error(
      { transfer_id: row.id, status: row.status, update: status },
      'the bank connector contradicts a final transfer state',
    );
    return new AppError('TRANSFER_STATE_CONFLICT', {
      message: `The transfer is ${row.status}; the bank now says ${status}. Nothing changed: an operator must reconcile it with the bank.`,
    });
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
        return {
          ...view,
          company_id: row.partner_id,
          business_name: row.business_name,
          response_code: row.response_code,
          next_query_at:
            row.next_query_at === null ? null : new Date(Number(row.next_query_at)).toISOString(),
          query_attempts: row.query_attempts,
          stuck:
            (row.status === 'pending' || row.status === 'processing') &&
            Number(row.created_at) < now - STUCK_AFTER_MS,
        };
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
    advance,
    connectorUpdate,
    listAll,
    dailyReport,
    purgeNameEnquiries: () => repo.purgeNameEnquiries(db, clock.now() - NAME_ENQUIRY_TTL_MS),
  };
}
