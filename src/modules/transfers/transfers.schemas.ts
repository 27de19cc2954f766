import { type Static, Type } from '@sinclair/typebox';
import {
  CreatedRange,
  DateOnly,
  Defaulted,
  Environment,
  FreeText,
  Nullable,
  Page,
  PaginationQuery,
  StringEnum,
  Success,
  Timestamp,
} from '../../platform/http/schemas.js';
import { TRANSFER_STATUSES } from './transfers.table.js';

/** The most one transfer may move, in kobo: ₦10,000,000.00. */
export const MAX_TRANSFER_KOBO = 1_000_000_000;
/** How long a name enquiry's answer (and its name_enquiry_ref) is good for. */
export const NAME_ENQUIRY_TTL_MS = 30 * 60 * 1000;

const BankCode = (description: string) =>
  Type.String({
    pattern: '^[0-9]{6}$',
    errorMessage: 'must be a 6-digit NIP institution code',
    description,
    examples: ['000013'],
  });
const AccountNumber = (description: string) =>
  Type.String({
    pattern: '^[0-9]{10}$',
    errorMessage: 'must be a 10-digit account number',
    description,
    examples: ['0123456789'],
  });

export const Bank = Type.Object(
  {
    code: Type.String({ pattern: '^[0-9]{6}$', description: 'NIP institution code.', examples: ['000013'] }),
    name: Type.String({ examples: ['GTBank'] }),
  },
  { title: 'Bank' },
);
export const BankListResponse = Success(Type.Array(Bank), 'Banks a transfer can reach, sorted by name.');

export const NameEnquiryBody = Type.Object(
  {
    bank_code: BankCode("The beneficiary bank's NIP institution code (GET /services/banks)."),
    account_number: AccountNumber("The beneficiary's 10-digit account number."),
  },
  { examples: [{ bank_code: '000013', account_number: '0123456789' }] },
);
export type NameEnquiryBody = Static<typeof NameEnquiryBody>;

export const NameEnquiry = Type.Object(
  {
    bank_code: Type.String({ examples: ['000013'] }),
    bank_name: Type.String({ examples: ['GTBank'] }),
    account_number: Type.String({ examples: ['0123456789'] }),
    account_name: Type.String({
      description: 'The name the beneficiary bank holds: show it to the person before they send.',
      examples: ['CHIOMA ADEBAYO'],
    }),
    name_enquiry_ref: Type.String({
      description:
        'Pass it with the transfer within 30 minutes (same bank and account) to skip a second enquiry.',
    }),
  },
  { title: 'NameEnquiry' },
);
export const NameEnquiryResponse = Success(NameEnquiry, 'Beneficiary found.');

export const CreateTransferBody = Type.Object(
  {
    source_account_number: AccountNumber(
      'Your virtual account the money leaves from (active, this environment).',
    ),
    amount: Type.Unsafe<number | string>({
      type: ['number', 'string'],
      maxLength: 20,
      description:
        'Naira, greater than 0, at most 2 decimals and at most 10,000,000.00. A JSON number or a decimal string ("1500.50"). The fee comes on top.',
      examples: [25000],
    }),
    bank_code: BankCode(
      "The beneficiary bank's NIP institution code; this institution's own code makes a free, instant book transfer.",
    ),
    account_number: AccountNumber("The beneficiary's account number."),
    narration: Type.Optional(
      FreeText({
        maxLength: 100,
        description: 'Shown to the beneficiary; default: the reference.',
        examples: ['Payout 118'],
      }),
    ),
    reference: Type.String({
      pattern: '^[A-Za-z0-9_-]{1,64}$',
      errorMessage: 'must be 1-64 characters of A-Z, a-z, 0-9, _ and -',
      description:
        'Yours, unique per environment: a second transfer with it gets 409 DUPLICATE_REFERENCE with the first in `data`.',
      examples: ['payout-2026-11-28-0001'],
    }),
    name_enquiry_ref: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description:
          'From a name enquiry of the same bank and account in the last 30 minutes; otherwise the server enquires itself.',
      }),
    ),
  },
  {
    examples: [
      {
        source_account_number: '0123456785',
        amount: 25000,
        bank_code: '000013',
        account_number: '0123456789',
        narration: 'Payout 118',
        reference: 'payout-2026-11-28-0001',
      },
    ],
  },
);
export type CreateTransferBody = Static<typeof CreateTransferBody>;

export const TransferStatus = StringEnum(TRANSFER_STATUSES, {
  description:
    'pending: accepted, amount and fee held; processing: handed to the bank; successful: debited; failed: nothing debited, the hold released; reversed: the bank returned the money after success (the fee is kept).',
});

export const Transfer = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    reference: Type.String(),
    status: TransferStatus,
    source_account_number: Type.String(),
    amount: Type.Number({ description: 'Naira.', examples: [25000] }),
    amount_kobo: Type.Integer({ examples: [2500000] }),
    fee: Type.Number({
      description: 'Naira: the NIP fee with VAT; 0 for a book transfer.',
      examples: [26.88],
    }),
    fee_kobo: Type.Integer({ examples: [2688] }),
    currency: Type.Literal('NGN'),
    beneficiary: Type.Object(
      {
        account_name: Type.String(),
        account_number: Type.String(),
        bank_code: Type.String(),
        bank_name: Type.String(),
      },
      { title: 'Beneficiary' },
    ),
    narration: Type.String(),
    session_id: Nullable(Type.String({ description: 'The NIBSS session id, null until the bank gives it.' })),
    failure_reason: Nullable(Type.String({ description: 'Why it failed (or was reversed).' })),
    environment: Environment,
    created_at: Timestamp(),
    updated_at: Timestamp(),
    status_history: Type.Array(
      Type.Object({ status: TransferStatus, at: Timestamp() }, { title: 'TransferStatusChange' }),
      { description: 'Every state the transfer entered, oldest first.' },
    ),
  },
  { title: 'Transfer' },
);
export const TransferResponse = Success(Transfer, 'Transfer.');
export const TransferAcceptedResponse = Success(Transfer, 'Transfer accepted.');
export const TransferListResponse = Success(Page(Transfer), 'Transfers.');

export const TransferParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The transfer id.' }),
});

export const TransferListQuery = Type.Object({
  ...PaginationQuery.properties,
  status: Type.Optional(TransferStatus),
  source_account_number: Type.Optional(AccountNumber('Only transfers from this account.')),
  reference: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9_-]{1,64}$',
      errorMessage: 'must be 1-64 characters of A-Z, a-z, 0-9, _ and -',
    }),
  ),
  ...CreatedRange,
});
export type TransferListQuery = Static<typeof TransferListQuery>;

export const AdminTransfer = Type.Object(
  {
    ...Transfer.properties,
    company_id: Type.Integer(),
    business_name: Type.String(),
    response_code: Nullable(Type.String({ description: "The bank's last NIP response code." })),
    next_query_at: Nullable(Timestamp('When the server next asks the bank; null when it waits for nothing.')),
    query_attempts: Type.Integer(),
    stuck: Type.Boolean({
      description: 'Still pending or processing 10 minutes after it was accepted: the bank owes an answer.',
    }),
  },
  { title: 'AdminTransfer' },
);
export const AdminTransferListResponse = Success(Page(AdminTransfer), 'Transfers.');
export const AdminTransferListQuery = Type.Object({
  ...PaginationQuery.properties,
  status: Type.Optional(TransferStatus),
  company_id: Type.Optional(Type.Integer({ minimum: 1 })),
  environment: Type.Optional(Environment),
  stuck: Type.Optional(
    Type.Boolean({ description: 'true: only transfers still pending or processing after 10 minutes.' }),
  ),
});
export type AdminTransferListQuery = Static<typeof AdminTransferListQuery>;

const Tally = Type.Object({ count: Type.Integer(), amount_kobo: Type.Integer() }, { title: 'Tally' });
export const DailyReport = Type.Object(
  {
    date: Type.String({ format: 'date' }),
    environment: Environment,
    inbound: Tally,
    transfers: Type.Object(
      Object.fromEntries(TRANSFER_STATUSES.map((status) => [status, Tally])) as Record<
        (typeof TRANSFER_STATUSES)[number],
        typeof Tally
      >,
      { description: 'Transfers created that day, by their status now.' },
    ),
    fees_kobo: Type.Integer({ description: 'Fees debited that day.' }),
    balances_kobo: Type.Integer({ description: "Every account's balance at the day's end (UTC), summed." }),
  },
  { title: 'DailyReport' },
);
export const DailyReportResponse = Success(DailyReport, 'Daily report.');
export const DailyReportQuery = Type.Object({
  date: DateOnly({ description: 'The UTC day, YYYY-MM-DD.' }),
  environment: Defaulted(StringEnum(['live', 'sandbox'] as const, { default: 'live' })),
});
export type DailyReportQuery = Static<typeof DailyReportQuery>;
