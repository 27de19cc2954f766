import { type Static, Type } from '@sinclair/typebox';
import {
  ForeignText,
  ISO_DATE_OR_TIME,
  Nullable,
  Page,
  PaginationQuery,
  StringEnum,
  Success,
  Timestamp,
} from '../../platform/http/schemas.js';
import { Transfer } from '../transfers/transfers.schemas.js';
import { Transaction } from '../virtual-accounts/virtual-accounts.schemas.js';

/** The largest credit a notification may carry: ₦1 trillion, far above any NIP limit, inside bigint. */
export const MAX_NOTIFIED_KOBO = 100_000_000_000_000;

const SessionId = Type.String({
  pattern: '^[0-9]{30}$',
  description: 'The NIBSS session id of the inward transfer: 30 digits, unique per transfer.',
  examples: ['000013261127143012123456789012'],
});

const AccountNumber = (description: string) =>
  Type.String({ pattern: '^[0-9]{10}$', description, examples: ['0123456789'] });

/** The sender as the bank names it: its text is cleaned, never refused (docs/decisions.md). */
const NotifiedOriginator = Type.Object(
  {
    account_name: ForeignText(200, { examples: ['CHIOMA ADEBAYO'] }),
    account_number: AccountNumber("The sender's account number."),
    bank_code: Type.String({
      pattern: '^([0-9]{3}|[0-9]{6})$',
      description: "The sending bank's NIP institution code (6 digits) or CBN code (3 digits).",
      examples: ['000013'],
    }),
    bank_name: Type.Optional(ForeignText(100, { examples: ['GTBank'] })),
  },
  { title: 'Originator' },
);

export const CreditNotificationBody = Type.Object(
  {
    session_id: SessionId,
    account_number: AccountNumber('The live virtual account credited.'),
    amount_kobo: Type.Integer({ minimum: 1, maximum: MAX_NOTIFIED_KOBO, examples: [2500000] }),
    narration: Type.Optional(ForeignText(255, { examples: ['Invoice 118'] })),
    originator: NotifiedOriginator,
    transaction_at: Type.String({
      pattern:
        '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})$',
      errorMessage: 'must be an ISO-8601 date-time with a zone',
      description: 'When the bank completed the transfer (ISO-8601 with a zone).',
      examples: ['2026-11-27T14:30:12Z'],
    }),
  },
  {
    title: 'CreditNotification',
    examples: [
      {
        session_id: '000013261127143012123456789012',
        account_number: '0901234567',
        amount_kobo: 2500000,
        narration: 'Invoice 118',
        originator: {
          account_name: 'CHIOMA ADEBAYO',
          account_number: '0123456789',
          bank_code: '000013',
          bank_name: 'GTBank',
        },
        transaction_at: '2026-11-27T14:30:12Z',
      },
    ],
  },
);
export type CreditNotificationBody = Static<typeof CreditNotificationBody>;

export const CreditNotificationResponse = Success(
  Type.Object(
    {
      outcome: StringEnum(['credited', 'duplicate'] as const, {
        description:
          'credited: this notification credited the account; duplicate: its session id was credited before ' +
          '(the earlier transaction is returned, nothing is credited again).',
      }),
      transaction: Transaction,
    },
    { title: 'CreditNotificationResult' },
  ),
  'Credited.',
);

export const TransferUpdateBody = Type.Object(
  {
    reference: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^[A-Za-z0-9_-]+$',
      description: 'Our reference of the transfer, as given to the connector.',
    }),
    status: StringEnum(['successful', 'failed', 'reversed'] as const),
    session_id: Type.Optional(SessionId),
    response_code: Type.Optional(Type.String({ pattern: '^[0-9A-Za-z]{2,3}$', examples: ['00'] })),
    reason: Type.Optional(ForeignText(255)),
  },
  { title: 'TransferUpdate' },
);
export type TransferUpdateBody = Static<typeof TransferUpdateBody>;

export const TransferUpdateResult = Type.Object(
  {
    outcome: StringEnum(['applied', 'unchanged'] as const, {
      description: 'applied: the transfer moved; unchanged: a repeat or older news, nothing changed.',
    }),
    transfer: Transfer,
  },
  { title: 'TransferUpdateResult' },
);

export const NOTIFICATION_OUTCOMES = ['credited', 'duplicate', 'refused'] as const;

export const CreditNotificationsQuery = Type.Object({
  ...PaginationQuery.properties,
  outcome: Type.Optional(StringEnum(NOTIFICATION_OUTCOMES)),
  from: Type.Optional(
    Type.String({
      pattern: ISO_DATE_OR_TIME,
      errorMessage: 'must be an ISO-8601 date (YYYY-MM-DD) or date-time with a zone',
      description: 'Received at or after: an ISO-8601 date (from its start, UTC) or date-time.',
      examples: ['2026-11-27'],
    }),
  ),
  to: Type.Optional(
    Type.String({
      pattern: ISO_DATE_OR_TIME,
      errorMessage: 'must be an ISO-8601 date (YYYY-MM-DD) or date-time with a zone',
      description: 'Received at or before: an ISO-8601 date (to its end, UTC) or date-time.',
      examples: ['2026-11-27'],
    }),
  ),
});
export type CreditNotificationsQuery = Static<typeof CreditNotificationsQuery>;

export const CreditNotification = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    session_id: Type.String(),
    account_number: Type.String(),
    amount: Type.Number({ description: 'Naira.', examples: [25000] }),
    amount_kobo: Type.Integer({ examples: [2500000] }),
    narration: Nullable(Type.String()),
    originator: Type.Object({
      account_name: Type.String(),
      account_number: Type.String(),
      bank_code: Type.String(),
      bank_name: Nullable(Type.String()),
    }),
    transaction_at: Timestamp('When the bank says the transfer happened.'),
    outcome: StringEnum(NOTIFICATION_OUTCOMES),
    error_code: Nullable(
      Type.String({
        description: 'Why a refused one was refused: NOT_FOUND, ACCOUNT_INACTIVE or ACCOUNT_CLOSED.',
      }),
    ),
    company_id: Nullable(
      Type.Integer({ description: "The account's partner; null for an unknown account." }),
    ),
    business_name: Nullable(Type.String()),
    transaction_id: Nullable(
      Type.String({ description: 'The ledger entry it credited, or the earlier one a duplicate repeats.' }),
    ),
    received_at: Timestamp(),
  },
  { title: 'BankCreditNotification' },
);

export const CreditNotificationListResponse = Success(Page(CreditNotification), 'Credit notifications.');
