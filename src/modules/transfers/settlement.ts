import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { AuditActor } from '../../platform/audit/audit.repository.js';
import type { AuditedWrite, WriteContext } from '../../platform/audit/audited-write.js';
import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/crypto/tokens.js';
import type { Database } from '../../platform/db/schema.js';
import type { Environment } from '../../platform/environment.js';
import { AppError } from '../../platform/errors/errors.js';
import { extend } from '../../platform/objects.js';
import type { Notifications } from '../notifications/notifications.service.js';
import * as ledger from '../virtual-accounts/ledger.repository.js';
import type { VirtualAccountEventType } from '../virtual-accounts/virtual-accounts.events.js';
import * as accounts from '../virtual-accounts/virtual-accounts.repository.js';
import { NIP, type OutboundTransfer, type Rail, type TransferAnswer } from './rail.js';
import type { TransferEventType } from './transfers.events.js';
import * as repo from './transfers.repository.js';
import type { TransferStatus } from './transfers.table.js';
import { type TransferView, transferView, transferViewOf } from './transfers.views.js';

export interface SettlementDeps {
  db: Kysely<Database>;
  write: AuditedWrite<TransferEventType | VirtualAccountEventType>;
  clock: Clock;
  log: Logger;
  railFor(environment: Environment): Rail;
  /** TRANSFER_REQUERY_MS: the first status query's delay, doubling after each. */
  requeryMs: number;
  notify: Notifications;
}

export type Settlement = ReturnType<typeof createSettlement>;

/** Status queries stop this long after the transfer was sent: it then waits for an operator. */
export const QUERY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** The longest wait between two status queries. */
const MAX_QUERY_INTERVAL_MS = 60 * 60 * 1000;

/** Who moves a transfer after it was accepted: the worker, on the bank's word. */
const WORKER_ACTOR: AuditActor = { partnerId: null, actorType: 'system', actorId: 'transfer_worker' };
/** The sponsor bank's connector, when it reports on a transfer itself. */
const CONNECTOR_ACTOR: AuditActor = { partnerId: null, actorType: 'system', actorId: 'bank_connector' };

/** Delay of status query n+1 after n: requeryMs, doubling, at most an hour. */
export const queryDelayMs = (requeryMs: number, attempts: number): number =>
  Math.min(requeryMs * 2 ** Math.min(attempts, 30), Math.max(requeryMs, MAX_QUERY_INTERVAL_MS));

/**
 * What happens to a transfer after it was accepted (docs/operator-guide.md, "Transfers: this
 * service's calls to the connector"): the worker's step (`advance`: record `processing`, then hand it
 * to the bank once; or ask the bank its status) and the connector's own word (`connectorUpdate`).
 * Every move is one conditional UPDATE of the transfer's status, with its entries, hold, history,
 * audit and event in the same transaction, so of two racing moves only one applies.
 */
export function createSettlement(deps: SettlementDeps) {
  const { db, write, clock, log, requeryMs } = deps;
  const viewOf = (row: repo.TransferRow) => transferViewOf(db, row);

  /**
   * Moves a transfer (repo.move) after locking its account: the account's lock first, then the
   * transfer's row, the order accepting a transfer takes them.
   */
  async function lockAndMove(
    trx: Transaction<Database>,
    transfer: Pick<repo.TransferRow, 'id' | 'account_id'>,
    from: Parameters<typeof repo.move>[2],
    to: TransferStatus,
    changes: Parameters<typeof repo.move>[4],
    now: number,
  ) {
    await accounts.lockAccount(trx, transfer.account_id);
    return repo.move(trx, transfer.id, from, to, changes, now);
  }

  /** Records that a transfer entered `status`, at once: `announce` reads the history in the same transaction. */
  const recordStatus = (
    trx: Transaction<Database>,
    transferId: string,
    status: TransferStatus,
    reason: string | null,
    at: number,
  ) =>
    trx
      .insertInto('transfer_status_changes')
      .values({ id: newId(), transfer_id: transferId, status, reason, at })
      .execute();

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
        await recordStatus(context.trx, id, 'processing', null, context.now);
      }
      return row;
    });
  }

  /** processing → successful: the hold becomes the transfer's and the fee's debit entries. */
  async function succeed(
    transfer: Pick<repo.TransferRow, 'id' | 'account_id'>,
    answer: { sessionId: string | null; responseCode: string | null },
    actor: AuditActor,
    followUpMs: number | null,
  ) {
    return write({ actor, meta: null }, async (context) => {
      const { trx, now } = context;
      const id = transfer.id;
      const row = await lockAndMove(
        trx,
        transfer,
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
      // A session id is an inbound credit's key too (unique per environment): a bank that gave the same
      // one twice must not stop the money's booking, so a taken one stays on the transfer only.
      const sessionTaken =
        row.session_id !== null && (await ledger.findBySession(trx, row, row.session_id)) !== undefined;
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
          sessionId: sessionTaken ? null : row.session_id,
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
      await recordStatus(trx, id, 'successful', null, now);
      return announce(context, row, 'transfer.successful', {
        session_id: row.session_id,
        response_code: row.response_code,
      });
    });
  }

  /** pending or processing → failed, on a definite answer: the hold is released, nothing is debited. */
  async function fail(
    transfer: Pick<repo.TransferRow, 'id' | 'account_id'>,
    answer: { responseCode: string | null; reason: string },
    actor: AuditActor,
  ) {
    return write({ actor, meta: null }, async (context) => {
      const { trx, now } = context;
      const id = transfer.id;
      const row = await lockAndMove(
        trx,
        transfer,
        ['pending', 'processing'],
        'failed',
        { failure_reason: answer.reason, response_code: answer.responseCode, next_query_at: null },
        now,
      );
      if (!row) return undefined;
      await ledger.releaseHold(trx, row.account_id, Number(row.amount_kobo) + Number(row.fee_kobo));
      await recordStatus(trx, id, 'failed', answer.reason, now);
      await deps.notify.transferFailed(
        trx,
        {
          id: row.id,
          partnerId: row.partner_id,
          environment: row.environment,
          reference: row.reference,
          amountKobo: Number(row.amount_kobo),
          beneficiary: `${row.beneficiary_account_name}, ${row.beneficiary_account_number} (${row.beneficiary_bank_name})`,
          reason: answer.reason,
        },
        now,
      );
      return announce(context, row, 'transfer.failed', {
        failure_reason: answer.reason,
        response_code: answer.responseCode,
      });
    });
  }

  /** successful → reversed: the bank returned the money; its amount is credited back (the fee is kept). */
  async function reverse(
    transfer: Pick<repo.TransferRow, 'id' | 'account_id'>,
    answer: { reason: string; responseCode: string | null },
    actor: AuditActor,
  ) {
    return write({ actor, meta: null }, async (context) => {
      const { trx, now } = context;
      const id = transfer.id;
      const row = await lockAndMove(
        trx,
        transfer,
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
      await recordStatus(trx, id, 'reversed', answer.reason, now);
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
    to: 'send' | 'query' | 'update' = 'query',
  ): Promise<void> {
    const rail = deps.railFor(row.environment);
    const outbound = outboundOf(row);
    switch (answer.outcome) {
      case 'successful':
        if (row.status === 'processing') {
          await succeed(row, answer, actor, rail.followUpMs?.(outbound) ?? null);
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
          // A status query's 25/07 is NIP's "unable to locate record": the bank never took it.
          const unrecorded =
            to === 'query' && (NIP.unknownAccount as readonly string[]).includes(answer.responseCode ?? '');
          await fail(
            row,
            unrecorded
              ? extend(answer, { reason: `the bank has no record of the transfer (${answer.responseCode})` })
              : answer,
            actor,
          );
          return;
        }
        log.error(
          { transfer_id: row.id, status: row.status, answer },
          'the bank says a transfer failed after it succeeded',
        );
        // Nothing more to ask: the contradiction is for an operator.
        await repo.schedule(
          db,
          row.id,
          row.status,
          { next_query_at: null, query_attempts: row.query_attempts, response_code: row.response_code },
          clock.now(),
        );
        return;
      case 'reversed':
        if (row.status === 'processing') await succeed(row, answer, actor, null);
        await reverse(row, answer, actor);
        return;
      case 'unknown': {
        const now = clock.now();
        // After the send the first query stays where `processing` put it (it waits out the send);
        // after a query the next one backs off. query_attempts counts status queries only.
        const attempts = to === 'send' ? 0 : row.query_attempts + 1;
        const next =
          to === 'send' && row.next_query_at !== null
            ? Number(row.next_query_at)
            : now + queryDelayMs(requeryMs, row.query_attempts);
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
      await applyAnswer(sent, answer, WORKER_ACTOR, 'send');
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
    if (row?.environment !== 'live' || row.kind !== 'interbank' || row.status === 'pending') {
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
        row,
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
        row,
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
        row,
        { sessionId: body.session_id ?? row.session_id, responseCode: '00' },
        CONNECTOR_ACTOR,
        null,
      );
    }
    const view = await reverse(
      row,
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

  return { advance, connectorUpdate };
}
