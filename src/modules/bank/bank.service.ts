import type { Kysely } from 'kysely';
import type { AuditActor, RequestMeta } from '../../platform/audit/audit.repository.js';
import { type Clock, toIso } from '../../platform/clock.js';
import type { KeyRing } from '../../platform/crypto/keys.js';
import { newId } from '../../platform/crypto/tokens.js';
import type { Database } from '../../platform/db/schema.js';
import { AppError, validationError } from '../../platform/errors/errors.js';
import type { CreditOutcome } from '../../platform/metrics/metrics.js';
import { keysetCursor } from '../../platform/pagination/cursor.js';
import { instantRange } from '../../platform/time-range.js';
import { koboToNaira } from '../virtual-accounts/money.js';
import {
  CreditRefused,
  type Receipt,
  type VirtualAccountsService,
} from '../virtual-accounts/virtual-accounts.service.js';
import * as repo from './bank.repository.js';
import type { CreditNotificationBody, CreditNotificationsQuery } from './bank.schemas.js';

export interface BankDeps {
  db: Kysely<Database>;
  clock: Clock;
  keys: KeyRing;
  virtualAccounts: VirtualAccountsService;
  /** Counts each notification's outcome (metrics). */
  onNotification(outcome: CreditOutcome): void;
}

export type BankService = ReturnType<typeof createBankService>;

/**
 * Who books a live credit: the sponsor bank's connector, in the audit trail as a system actor (the
 * account's partner is named by each audit and event, once the credit has found the account).
 */
const CONNECTOR_ACTOR: AuditActor = { partnerId: null, actorType: 'system', actorId: 'bank_connector' };

/** A list item as operators see it. */
function notificationView(row: repo.NotificationRow) {
  return {
    id: row.id,
    session_id: row.session_id,
    account_number: row.account_number,
    amount: koboToNaira(Number(row.amount_kobo)),
    amount_kobo: Number(row.amount_kobo),
    narration: row.narration,
    originator: {
      account_name: row.originator_account_name,
      account_number: row.originator_account_number,
      bank_code: row.originator_bank_code,
      bank_name: row.originator_bank_name,
    },
    transaction_at: toIso(Number(row.transaction_at)),
    outcome: row.outcome,
    error_code: row.error_code,
    company_id: row.partner_id,
    business_name: row.business_name,
    transaction_id: row.transaction_id,
    received_at: toIso(Number(row.received_at)),
  };
}

/**
 * Money in from the sponsor bank (docs/operator-guide.md, "The bank connector"): a notification
 * credits the live account it names through the one inbound path (virtual accounts' `receive`,
 * which simulate-credit runs too), at most once per NIBSS session id; every notification is kept
 * with its outcome, the credited one in the credit's own transaction.
 */
export function createBankService({ db, clock, keys, virtualAccounts, onNotification }: BankDeps) {
  async function creditNotification(
    body: CreditNotificationBody,
    meta: RequestMeta,
  ): Promise<Pick<Receipt, 'outcome' | 'transaction'>> {
    const transactionAt = Date.parse(body.transaction_at);
    if (Number.isNaN(transactionAt)) {
      throw validationError({ transaction_at: ['must be a real date-time'] });
    }
    const originator = {
      account_name: body.originator.account_name,
      account_number: body.originator.account_number,
      bank_code: body.originator.bank_code,
      bank_name: body.originator.bank_name ?? null,
    };
    const notification = (
      outcome: repo.NewNotification['outcome'],
      extra: Pick<repo.NewNotification, 'error_code' | 'partner_id' | 'account_id' | 'transaction_id'>,
      receivedAt: number,
    ): repo.NewNotification => ({
      id: newId(),
      session_id: body.session_id,
      account_number: body.account_number,
      amount_kobo: body.amount_kobo,
      narration: body.narration ?? null,
      originator_account_name: originator.account_name,
      originator_account_number: originator.account_number,
      originator_bank_code: originator.bank_code,
      originator_bank_name: originator.bank_name,
      transaction_at: transactionAt,
      outcome,
      request_id: meta.requestId,
      received_at: receivedAt,
      ...extra,
    });

    let receipt: Receipt;
    try {
      receipt = await virtualAccounts.receive(
        virtualAccounts.liveAccount(body.account_number),
        {
          amountKobo: body.amount_kobo,
          narration: body.narration ?? null,
          reference: `NIP-${body.session_id}`,
          sessionId: body.session_id,
          originator,
        },
        {
          actor: CONNECTOR_ACTOR,
          meta,
          // The credited notification commits with the credit: a crash keeps both or neither.
          record: ({ insert, now }, entry) =>
            insert(
              'bank_credit_notifications',
              notification(
                'credited',
                {
                  error_code: null,
                  partner_id: entry.partner_id,
                  account_id: entry.account_id,
                  transaction_id: entry.id,
                },
                now,
              ),
            ),
        },
      );
    } catch (error) {
      if (error instanceof CreditRefused) {
        await repo.insertNotification(
          db,
          notification(
            'refused',
            {
              error_code: error.code,
              partner_id: error.account?.partner_id ?? null,
              account_id: error.account?.id ?? null,
              transaction_id: null,
            },
            clock.now(),
          ),
        );
        onNotification('refused');
        if (error.code === 'NOT_FOUND') {
          throw new AppError('NOT_FOUND', { message: 'No live virtual account has this account number.' });
        }
      }
      throw error;
    }
    if (receipt.outcome === 'duplicate') {
      await repo.insertNotification(
        db,
        notification(
          'duplicate',
          {
            error_code: null,
            partner_id: receipt.partnerId,
            account_id: receipt.accountId,
            transaction_id: receipt.transaction.id,
          },
          clock.now(),
        ),
      );
    }
    onNotification(receipt.outcome);
    return { outcome: receipt.outcome, transaction: receipt.transaction };
  }

  async function listNotifications(query: CreditNotificationsQuery) {
    const range = instantRange(query.from, query.to, ['from', 'to']);
    const filter = { outcome: query.outcome, from: range.from, to: range.to };
    const cursor = keysetCursor(keys.cursor, 'bank_credit_notifications', JSON.stringify(filter), 'string');
    const position = cursor.decode(query.cursor);
    let after: repo.ListPosition | undefined;
    if (position !== undefined) {
      const [at = '', id = ''] = position.split('/');
      after = { at: Number(at), id };
    }
    const rows = await repo.listNotifications(db, {
      outcome: filter.outcome,
      from: filter.from,
      to: filter.to,
      after,
      limit: query.limit,
    });
    const page = cursor.page(rows, query.limit, (row) => `${row.received_at}/${row.id}`);
    return { items: page.items.map(notificationView), next_cursor: page.next_cursor };
  }

  return { creditNotification, listNotifications };
}
