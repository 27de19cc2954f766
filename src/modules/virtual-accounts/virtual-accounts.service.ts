import { randomInt } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { Transaction as DbTransaction, Kysely } from 'kysely';
import { type AuditActor, actorOf, type RequestMeta } from '../../platform/audit/audit.repository.js';
import type { AuditedWrite, BatchContext } from '../../platform/audit/audited-write.js';
import { type PartnerCredential, scopeKey, scopeOf } from '../../platform/auth/credentials.js';
import { partnerIdOf } from '../../platform/auth/key-check.js';
import type { Clock } from '../../platform/clock.js';
import { sealBvn } from '../../platform/crypto/bvn.js';
import type { KeyRing } from '../../platform/crypto/keys.js';
import { newId } from '../../platform/crypto/tokens.js';
import type { Database } from '../../platform/db/schema.js';
import type { Environment } from '../../platform/environment.js';
import { AppError, validationError } from '../../platform/errors/errors.js';
import { TOTAL_CAP } from '../../platform/http/schemas.js';
import { extend } from '../../platform/objects.js';
import { keysetCursor } from '../../platform/pagination/cursor.js';
import { createdRange, dayRange } from '../../platform/time-range.js';
import * as ledger from './ledger.repository.js';
import { koboToDecimal, koboToNaira, nairaToKobo } from './money.js';
import { nuban } from './nuban.js';
import type { VirtualAccountEventType } from './virtual-accounts.events.js';
import * as repo from './virtual-accounts.repository.js';
import {
  type AccountListQuery,
  type AccountStatus,
  type CreateVirtualAccountBody,
  MAX_CREDIT_KOBO,
  MAX_STATEMENT_DAYS,
  type SimulateCreditBody,
  type StatementQuery,
  type Transaction,
  type VirtualAccount,
} from './virtual-accounts.schemas.js';
import { accountView, transactionView } from './virtual-accounts.views.js';

export interface VirtualAccountsDeps {
  db: Kysely<Database>;
  write: AuditedWrite<VirtualAccountEventType>;
  keys: KeyRing;
  bankCodes: Record<Environment, string>;
  bankName: string;
  clock: Clock;
}

const MAX_ALLOCATION_ATTEMPTS = 10;
/** Rows a statement reads at a time. */
const STATEMENT_PAGE = 2000;
/** Accounts an export reads at a time. */
const EXPORT_PAGE = 1000;

export type VirtualAccountsService = ReturnType<typeof createVirtualAccountsService>;
export type Statement = Awaited<ReturnType<VirtualAccountsService['statement']>>;
type TransactionView = ReturnType<typeof transactionView>;

export interface CreditResult {
  transaction: Static<typeof Transaction>;
  account: Static<typeof VirtualAccount>;
}

/** An inbound transfer to book: from the sponsor bank's connector (live) or simulate-credit (sandbox). */
export interface InboundCredit {
  amountKobo: number;
  narration: string | null;
  /** Ours, unique: `NIP-<session id>` for the bank's, `SIM-…` for the sandbox's. */
  reference: string;
  /** The NIBSS session id: an account is credited once per session id. */
  sessionId: string;
  originator: ledger.Counterparty;
}

/** What an inbound transfer did: credited the account, or repeated the credit of its session id. */
export interface Receipt extends CreditResult {
  outcome: 'credited' | 'duplicate';
  accountId: string;
  partnerId: number;
}

/** A credit refused: no such account (NOT_FOUND), or one not active; `account` when there is one. */
export class CreditRefused extends AppError {
  constructor(
    code: 'NOT_FOUND' | 'ACCOUNT_INACTIVE' | 'ACCOUNT_CLOSED',
    readonly account: repo.VirtualAccountRow | undefined,
  ) {
    super(code, code === 'NOT_FOUND' ? { message: 'No virtual account has this account number here.' } : {});
  }
}

/** The sender of a sandbox credit that names none. */
const SANDBOX_ORIGINATOR = {
  account_name: 'SANDBOX SENDER',
  account_number: '9990000001',
  bank_code: '999998',
  bank_name: 'Sandbox Bank',
};

/** A unique index refused the session id: the credit happened before. */
class DuplicateSession extends Error {}

/**
 * A NIBSS-shaped session id: the sending institution's code, the time (yyMMddHHmmss, UTC) and 12
 * random digits: 30 digits.
 */
export function newSessionId(bankCode: string, now: number): string {
  const time = new Date(now)
    .toISOString()
    .replace(/[^0-9]/g, '')
    .slice(2, 14);
  return `${bankCode}${time}${String(randomInt(0, 1_000_000)).padStart(6, '0')}${String(randomInt(0, 1_000_000)).padStart(6, '0')}`;
}

export function createVirtualAccountsService({
  db,
  write,
  keys,
  bankCodes,
  bankName,
  clock,
}: VirtualAccountsDeps) {
  async function existingAccountError(scope: repo.Scope, email: string): Promise<AppError | undefined> {
    const existing = await repo.findOpenAccountByEmail(db, scope, email);
    if (!existing) return undefined;
    return new AppError('VIRTUAL_ACCOUNT_EXISTS', { data: accountView(existing) });
  }

  /**
   * Serials are drawn from the CSPRNG, so a number says nothing about the next one. The unique
   * constraint on (bank_code, account_number) decides every allocation, across processes: a
   * collision retries with a new serial, and a duplicate e-mail (the partial unique index over the
   * accounts that are not closed) answers with the existing account; no read before the insert is
   * needed for either. A closed account's e-mail is free again, its number never.
   */
  async function create(credential: PartnerCredential, input: CreateVirtualAccountBody, meta: RequestMeta) {
    const scope = scopeOf(credential);
    const bankCode = bankCodes[credential.environment];
    const options = {
      actor: actorOf(credential),
      meta,
      onUniqueViolation: () => existingAccountError(scope, input.email),
      attempts: MAX_ALLOCATION_ATTEMPTS,
    };
    const build = ({ now, insert, audit, emit }: BatchContext<VirtualAccountEventType>) => {
      const accountNumber = nuban(bankCode, String(randomInt(0, 1_000_000_000)).padStart(9, '0'));
      const row = {
        id: newId(),
        // A key taken from the cache is checked by this insert (partnerIdOf).
        partner_id: partnerIdOf(credential),
        environment: credential.environment,
        account_number: accountNumber,
        bank_code: bankCode,
        bank_name: bankName,
        // business_name never changes after registration, so the credential's copy is current.
        account_name: `${credential.businessName}/${input.first_name} ${input.last_name}`,
        currency: 'NGN' as const,
        status: 'active' as const,
        status_reason: null,
        status_changed_at: null,
        first_name: input.first_name,
        last_name: input.last_name,
        customer_email: input.email,
        phone: input.phone,
        ...(input.bvn ? sealBvn(keys, input.bvn) : { bvn_encrypted: null, bvn_hash: null, bvn_last4: null }),
        balance_kobo: 0,
        held_kobo: 0,
        last_entry_at: null,
        created_at: now,
      };
      const account = accountView(row);
      insert('virtual_accounts', row);
      audit({
        action: 'virtual_account.created',
        targetType: 'virtual_account',
        targetId: row.id,
        metadata: { account_number: accountNumber, environment: credential.environment },
      });
      emit({ environments: [credential.environment], type: 'virtual_account.created', data: account });
      return account;
    };
    // One statement on PostgreSQL (account, audit and outbox rows); with an Idempotency-Key the write
    // becomes a transaction that also records the answer (platform/idempotency).
    return write.batch(options, build);
  }

  async function findAccount(credential: PartnerCredential, accountNumber: string) {
    const row = await repo.findAccountByNumber(db, scopeOf(credential), accountNumber);
    if (!row) throw new AppError('NOT_FOUND');
    return row;
  }

  async function get(credential: PartnerCredential, accountNumber: string) {
    return accountView(await findAccount(credential, accountNumber));
  }

  function accountFilter(query: AccountListQuery): repo.AccountFilter {
    const range = createdRange(query);
    // Filters not given are undefined: read as absent, and left out of the cursor's JSON.
    return {
      status: query.status,
      email: query.email,
      createdFrom: range.from,
      createdTo: range.to,
      search: query.q?.toLowerCase(),
    };
  }

  async function list(credential: PartnerCredential, query: AccountListQuery) {
    const filter = accountFilter(query);
    const order = query.order;
    // A cursor pages the list it came from: same partner, environment, filter and order.
    const cursor = keysetCursor(
      keys.cursor,
      'virtual_accounts',
      `${scopeKey(credential)}:${order}:${JSON.stringify(filter)}`,
      'string',
    );
    const after = cursor.decode(query.cursor);
    const scope = scopeOf(credential);
    const [rows, total] = await Promise.all([
      repo.listAccounts(db, scope, { limit: query.limit, order, after, ...filter }),
      repo.countAccounts(db, scope, filter, TOTAL_CAP),
    ]);
    const page = cursor.page(rows, query.limit, (row) => row.id);
    return {
      items: page.items.map(accountView),
      next_cursor: page.next_cursor,
      total: Math.min(total, TOTAL_CAP),
      total_capped: total > TOTAL_CAP,
    };
  }

  /**
   * Every account the list's filter and order match, not one page: read a keyset page at a time
   * (the cursor and limit of the query are ignored), so an export of any size holds one page.
   */
  async function* exportPages(credential: PartnerCredential, query: AccountListQuery) {
    const filter = accountFilter(query);
    const scope = scopeOf(credential);
    let after: string | undefined;
    for (;;) {
      const rows = await repo.listAccounts(db, scope, {
        limit: EXPORT_PAGE,
        order: query.order,
        after,
        ...filter,
      });
      const page = rows.slice(0, EXPORT_PAGE);
      yield page.map(accountView);
      if (rows.length <= EXPORT_PAGE) return;
      after = page.at(-1)?.id;
    }
  }

  function creditAmount(amount: number | string): number {
    const kobo = nairaToKobo(amount);
    if (kobo === undefined)
      throw validationError({ amount: ['must be a naira amount with at most 2 decimals'] });
    if (kobo <= 0) throw validationError({ amount: ['must be greater than 0'] });
    if (kobo > MAX_CREDIT_KOBO)
      throw validationError({ amount: [`must be at most ${koboToDecimal(MAX_CREDIT_KOBO)}`] });
    return kobo;
  }

  /**
   * An inbound transfer reaches an account: the one way money comes in, for the bank connector's
   * notifications (live) and simulate-credit (sandbox) alike. One UPDATE takes the account's row
   * lock, checks that it is active and moves its balance (ledger.postToAccount); the entry (with the
   * sender as counterparty and the NIBSS session id), the audit event, `virtual_account.credited` and
   * what the caller `record`s follow in one statement, all in one transaction. A session id already
   * credited is refused by a unique index (live: across the institution; sandbox: per partner),
   * concurrently and across instances alike: the transaction rolls back and the answer is the entry
   * that session id credited, as a duplicate. An account that is not there or not active refuses
   * the credit (CreditRefused names it).
   */
  async function receive(
    key: ledger.AccountKey,
    credit: InboundCredit,
    options: {
      actor: AuditActor;
      meta: RequestMeta | null;
      record?: (context: BatchContext<VirtualAccountEventType>, entry: ledger.EntryRow) => void;
    },
  ): Promise<Receipt> {
    try {
      return await write(
        { actor: options.actor, meta: options.meta, onUniqueViolation: () => new DuplicateSession() },
        async (context) => {
          const { trx, now, insert, audit, emit } = context;
          const account = await ledger.postToAccount(
            trx,
            key,
            { type: 'credit', amountKobo: credit.amountKobo },
            now,
          );
          if (!account) throw await refusal(trx, key, credit.sessionId);
          const entry = ledger.entryRow(account, {
            id: newId(),
            type: 'credit',
            kind: 'inbound_transfer',
            amountKobo: credit.amountKobo,
            narration: credit.narration,
            reference: credit.reference,
            counterparty: credit.originator,
            sessionId: credit.sessionId,
            transferId: null,
          });
          insert('account_transactions', entry);
          const result = { transaction: transactionView(entry), account: accountView(account) };
          audit({
            partnerId: account.partner_id,
            action: 'virtual_account.credited',
            targetType: 'virtual_account',
            targetId: account.id,
            metadata: {
              account_number: account.account_number,
              amount_kobo: credit.amountKobo,
              reference: entry.reference,
              session_id: credit.sessionId,
            },
          });
          emit({
            partnerId: account.partner_id,
            environments: [account.environment],
            type: 'virtual_account.credited',
            data: result,
          });
          options.record?.(context, entry);
          return extend(result, {
            outcome: 'credited' as const,
            accountId: account.id,
            partnerId: account.partner_id,
          });
        },
      );
    } catch (error) {
      if (!(error instanceof DuplicateSession)) throw error;
      const scope =
        'id' in key
          ? await repo.findAccountById(db, key.id)
          : { environment: key.environment, partner_id: 0 };
      const earlier = await ledger.findBySession(db, scope, credit.sessionId);
      // The index that refused it names an entry that exists: entries are never deleted.
      if (!earlier) throw new Error(`session ${credit.sessionId} refused as a duplicate but not found`);
      return {
        outcome: 'duplicate',
        transaction: transactionView(earlier),
        account: accountView(await repo.findAccountById(db, earlier.account_id)),
        accountId: earlier.account_id,
        partnerId: earlier.partner_id,
      };
    }
  }

  /**
   * Why no active account took a credit, read in the same transaction: not there, or not active;
   * or, whatever the account's status now, its session id credited it before (a duplicate: the
   * connector retrying after a lost answer must not be told to return money it already booked).
   */
  async function refusal(
    trx: DbTransaction<Database>,
    key: ledger.AccountKey,
    sessionId: string,
  ): Promise<Error> {
    const account = await repo.findAccountByKey(trx, key);
    if (!account) return new CreditRefused('NOT_FOUND', undefined);
    if (await ledger.findBySession(trx, account, sessionId)) return new DuplicateSession();
    if (account.status === 'active') throw new Error(`account ${account.id} is active but took no credit`);
    return new CreditRefused(account.status === 'inactive' ? 'ACCOUNT_INACTIVE' : 'ACCOUNT_CLOSED', account);
  }

  /** The key of the live account a bank notification names: its number at this institution's live code. */
  const liveAccount = (accountNumber: string): ledger.AccountKey => ({
    bankCode: bankCodes.live,
    accountNumber,
    environment: 'live',
  });

  /**
   * Sandbox: an inbound transfer as the sponsor bank would report it, through `receive` like a live
   * one: the given sender and session id, or the sandbox's sender and a new NIBSS-shaped session id.
   */
  async function simulateCredit(
    credential: PartnerCredential,
    accountNumber: string,
    input: SimulateCreditBody,
    meta: RequestMeta,
  ): Promise<Receipt> {
    if (credential.environment !== 'sandbox') throw new AppError('SANDBOX_ONLY');
    const amountKobo = creditAmount(input.amount);
    const account = await findAccount(credential, accountNumber);
    const originator = input.originator ?? SANDBOX_ORIGINATOR;
    return receive(
      { id: account.id },
      {
        amountKobo,
        narration: input.narration ?? null,
        reference: `SIM-${newId()}`,
        sessionId: input.session_id ?? newSessionId(bankCodes.sandbox, clock.now()),
        originator: {
          account_name: originator.account_name,
          account_number: originator.account_number,
          bank_code: originator.bank_code,
          bank_name: originator.bank_name ?? null,
        },
      },
      { actor: actorOf(credential), meta },
    );
  }

  async function transactions(
    credential: PartnerCredential,
    accountNumber: string,
    filter: { cursor?: string; limit: number },
  ) {
    const account = await findAccount(credential, accountNumber);
    const cursor = keysetCursor(keys.cursor, 'account_transactions', account.id, 'string');
    const beforeId = cursor.decode(filter.cursor);
    const rows = await ledger.listEntries(db, account.id, {
      limit: filter.limit,
      ...(beforeId ? { beforeId } : {}),
    });
    const page = cursor.page(rows, filter.limit, (row) => row.id);
    return { items: page.items.map(transactionView), next_cursor: page.next_cursor };
  }

  /**
   * Moves an account's status, with its audit event and `virtual_account.status_changed` event. The
   * move is one conditional UPDATE under the account's row lock: closed is final, and a wrong state
   * is 409 ACCOUNT_INACTIVE / ACCOUNT_CLOSED. Reactivating an active account changes nothing (200).
   * The change is dated after the account's latest credit, and a credit no earlier than the change
   * it follows, so the ledger never shows a credit dated while the account was not active.
   */
  async function changeStatus(
    credential: PartnerCredential,
    accountNumber: string,
    change: { from: readonly AccountStatus[]; to: AccountStatus; reason: string | null },
    meta: RequestMeta,
  ) {
    const account = await findAccount(credential, accountNumber);
    return write({ actor: actorOf(credential), meta }, async ({ trx, now, audit, emit }) => {
      const current = await repo.lockAccount(trx, account.id);
      const refuse = () => {
        if (current.status === 'closed') throw new AppError('ACCOUNT_CLOSED');
        if (change.to === 'active') return accountView(current);
        throw new AppError('ACCOUNT_INACTIVE');
      };
      if (!change.from.includes(current.status)) return refuse();
      // `now` was read before this transaction waited for the row lock, so a credit that took the
      // lock first may be dated at or after it: the change is dated after every credit it follows.
      const lastEntryAt = current.last_entry_at === null ? undefined : Number(current.last_entry_at);
      const changedAt = lastEntryAt === undefined ? now : Math.max(now, lastEntryAt + 1);
      const moved = await repo.changeAccountStatus(trx, account.id, change, changedAt);
      if (!moved) return refuse();
      const data = accountView(moved);
      audit({
        action: 'virtual_account.status_changed',
        targetType: 'virtual_account',
        targetId: account.id,
        metadata: {
          account_number: accountNumber,
          from: current.status,
          to: change.to,
          ...(change.reason ? { reason: change.reason } : {}),
        },
      });
      emit({ environments: [credential.environment], type: 'virtual_account.status_changed', data });
      return data;
    });
  }

  const deactivate = (
    credential: PartnerCredential,
    accountNumber: string,
    reason: string,
    meta: RequestMeta,
  ) => changeStatus(credential, accountNumber, { from: ['active'], to: 'inactive', reason }, meta);
  const reactivate = (credential: PartnerCredential, accountNumber: string, meta: RequestMeta) =>
    changeStatus(credential, accountNumber, { from: ['inactive'], to: 'active', reason: null }, meta);
  const close = (credential: PartnerCredential, accountNumber: string, reason: string, meta: RequestMeta) =>
    changeStatus(credential, accountNumber, { from: ['active', 'inactive'], to: 'closed', reason }, meta);

  /**
   * The account's statement for whole days (UTC): the opening balance (the balance after the last
   * entry before `from`), the period's credits and debits and the closing balance, read at once from
   * the ledger, exact to the kobo; then its entries page by page as they are sent (oldest first, up
   * to the last row counted), so memory stays bounded however many a period holds.
   */
  async function statement(credential: PartnerCredential, accountNumber: string, query: StatementQuery) {
    const period = dayRange(query.from, query.to, MAX_STATEMENT_DAYS);
    const account = await findAccount(credential, accountNumber);
    const head = await ledger.statementHead(db, account.id, period);
    const closingKobo = head.openingKobo + head.creditsKobo - head.debitsKobo;
    async function* pages(): AsyncGenerator<TransactionView[]> {
      const last = head.last;
      if (!last) return;
      let after: ledger.LedgerPosition | undefined;
      for (;;) {
        const rows = await ledger.statementPage(
          db,
          account.id,
          { start: period.start, after, last },
          STATEMENT_PAGE,
        );
        if (rows.length > 0) yield rows.map(transactionView);
        if (rows.length < STATEMENT_PAGE) return;
        after = rows.at(-1);
      }
    }
    return {
      account_number: account.account_number,
      account_name: account.account_name,
      from: query.from,
      to: query.to,
      opening_balance: koboToNaira(head.openingKobo),
      opening_balance_kobo: head.openingKobo,
      total_credits: koboToNaira(head.creditsKobo),
      total_credits_kobo: head.creditsKobo,
      total_debits: koboToNaira(head.debitsKobo),
      total_debits_kobo: head.debitsKobo,
      closing_balance: koboToNaira(closingKobo),
      closing_balance_kobo: closingKobo,
      pages,
    };
  }

  return {
    create,
    get,
    list,
    exportPages,
    simulateCredit,
    receive,
    liveAccount,
    transactions,
    deactivate,
    reactivate,
    close,
    statement,
  };
}
