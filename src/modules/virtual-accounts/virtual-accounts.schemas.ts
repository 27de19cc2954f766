import { type Static, Type } from '@sinclair/typebox';
import {
  CountedPage,
  CreatedRange,
  DateOnly,
  Email,
  Environment,
  FreeText,
  Nullable,
  Page,
  PaginationQuery,
  Phone,
  SortOrder,
  StoredPhone,
  StringEnum,
  Success,
  Timestamp,
} from '../../platform/http/schemas.js';

export const MAX_CREDIT_KOBO = 1_000_000_000;

export const ACCOUNT_STATUSES = ['active', 'inactive', 'closed'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/** A ledger entry's direction: a credit adds its amount to the balance, a debit takes it away. */
export const ENTRY_TYPES = ['credit', 'debit'] as const;
export type EntryType = (typeof ENTRY_TYPES)[number];
/**
 * Why money moved: an inbound transfer from another bank (or the sandbox's simulation of one), a
 * transfer out and its fee, the bank returning a transfer (a credit), a transfer between two accounts
 * of this institution.
 */
export const ENTRY_KINDS = ['inbound_transfer', 'transfer', 'fee', 'reversal', 'book_transfer'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

/** The longest statement period, in days (docs/partner-guide.md, "Virtual accounts"). */
export const MAX_STATEMENT_DAYS = 366;

export const CreateVirtualAccountBody = Type.Object(
  {
    first_name: Type.String({ maxLength: 100, examples: ['Tunde'] }),
    last_name: Type.String({ maxLength: 100, examples: ['Bakare'] }),
    email: Email({
      description: "The end user's e-mail: one account per e-mail per partner per environment.",
    }),
    phone: Phone(),
    bvn: Type.Optional(
      Type.String({
        pattern: '^[0-9]{11}$',
        errorMessage: 'must be exactly 11 digits',
        description: 'Optional end-user BVN; encrypted at rest.',
      }),
    ),
  },
  {
    examples: [
      { first_name: 'Tunde', last_name: 'Bakare', email: 'tunde@example.com', phone: '+2348090000000' },
    ],
  },
);
export type CreateVirtualAccountBody = Static<typeof CreateVirtualAccountBody>;

export const VirtualAccount = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    account_number: Type.String({
      pattern: '^[0-9]{10}$',
      description: '10-digit NUBAN valid for bank_code under the CBN 2020 rule.',
      examples: ['0123456785'],
    }),
    account_name: Type.String({
      description: '<business_name>/<first_name> <last_name>',
      examples: ['Acme Payments Ltd/Tunde Bakare'],
    }),
    bank_name: Type.String({ examples: ['BaaS Partner Bank'] }),
    bank_code: Type.String({ pattern: '^[0-9]{6}$', examples: ['999999'] }),
    currency: Type.Literal('NGN'),
    status: StringEnum(ACCOUNT_STATUSES, {
      description:
        'active: takes credits; inactive: refuses credits until reactivated; closed: final, its number is never issued again.',
    }),
    status_reason: Nullable(
      Type.String({ description: 'The reason given with the last deactivation or closure.' }),
    ),
    status_changed_at: Nullable(Timestamp('When the status last changed; null while it never has.')),
    balance: Type.Number({
      description: 'Naira: the ledger balance, credits less debits (kept in integer kobo).',
      examples: [1500.5],
    }),
    balance_kobo: Type.Integer({ description: 'The same balance in integer kobo.', examples: [150050] }),
    available_balance: Type.Number({
      description:
        'Naira: what can be sent now, the balance less the amount and fee of every transfer from the account still pending or processing. Never negative.',
      examples: [1500.5],
    }),
    available_balance_kobo: Type.Integer({ description: 'The same in integer kobo.', examples: [150050] }),
    environment: Environment,
    customer: Type.Object(
      {
        first_name: Type.String(),
        last_name: Type.String(),
        email: Type.String({ format: 'email' }),
        phone: StoredPhone(),
      },
      { title: 'Customer' },
    ),
    created_at: Timestamp(),
  },
  { title: 'VirtualAccount' },
);

export const VirtualAccountResponse = Success(VirtualAccount, 'Virtual account.');
export const VirtualAccountListResponse = Success(CountedPage(VirtualAccount), 'Virtual accounts.');

export const AccountParams = Type.Object({
  account_number: Type.String({ pattern: '^[0-9]{10}$', description: '10-digit account number.' }),
});
export type AccountParams = Static<typeof AccountParams>;

export const ListQuery = PaginationQuery;

export const AccountListQuery = Type.Object({
  ...PaginationQuery.properties,
  status: Type.Optional(StringEnum(ACCOUNT_STATUSES)),
  email: Type.Optional(Email({ description: "The end user's e-mail, exact (case-insensitive)." })),
  ...CreatedRange,
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'Search: accounts whose account number, end-user e-mail, full name ("first last") or last name ' +
        'starts with this text (case-insensitive for A-Z; a prefix, not a substring). E.g. `0123`, `tunde@`, `bakare`.',
    }),
  ),
  order: SortOrder,
});
export type AccountListQuery = Static<typeof AccountListQuery>;

export const LifecycleReasonBody = Type.Object(
  {
    reason: FreeText({
      maxLength: 500,
      description: 'Why; kept on the account (status_reason), in the audit trail and in the event.',
    }),
  },
  { examples: [{ reason: 'The customer asked to pause the account.' }] },
);
export type LifecycleReasonBody = Static<typeof LifecycleReasonBody>;

export const StatementQuery = Type.Object({
  from: DateOnly({ description: 'First day of the statement (UTC), YYYY-MM-DD.' }),
  to: DateOnly({ description: 'Last day of the statement (UTC), YYYY-MM-DD; at most 366 days after from.' }),
});
export type StatementQuery = Static<typeof StatementQuery>;

export const SimulateCreditBody = Type.Object(
  {
    amount: Type.Unsafe<number | string>({
      type: ['number', 'string'],
      maxLength: 20,
      description:
        'Naira, greater than 0, at most 2 decimals and at most 10,000,000.00 per credit. A JSON number or a decimal string ("1500.50").',
      examples: [1500.5],
    }),
    narration: Type.Optional(FreeText({ maxLength: 255, examples: ['Test transfer'] })),
    originator: Type.Optional(
      Type.Object(
        {
          account_name: Type.String({ minLength: 1, maxLength: 200, examples: ['CHIOMA ADEBAYO'] }),
          account_number: Type.String({ pattern: '^[0-9]{10}$', examples: ['0123456789'] }),
          bank_code: Type.String({
            pattern: '^([0-9]{3}|[0-9]{6})$',
            description: 'NIP institution code (6 digits) or CBN bank code (3 digits).',
            examples: ['000013'],
          }),
          bank_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, examples: ['GTBank'] })),
        },
        { description: 'Who sent the money; default: the sandbox sender (SANDBOX SENDER, Sandbox Bank).' },
      ),
    ),
    session_id: Type.Optional(
      Type.String({
        pattern: '^[0-9]{30}$',
        description:
          'The NIBSS session id (30 digits); default: a new one. A session id this partner already credited in ' +
          'the sandbox is not credited again: the answer is 200 with the earlier credit.',
        examples: ['999999261127143012123456789012'],
      }),
    ),
  },
  {
    examples: [
      { amount: 1500.5, narration: 'Test transfer' },
      {
        amount: '25000.00',
        narration: 'Invoice 118',
        originator: {
          account_name: 'CHIOMA ADEBAYO',
          account_number: '0123456789',
          bank_code: '000013',
          bank_name: 'GTBank',
        },
        session_id: '000013261127143012123456789012',
      },
    ],
  },
);
export type SimulateCreditBody = Static<typeof SimulateCreditBody>;

/** The other bank account of an entry: who sent money in, who received money out. */
export const Counterparty = Type.Object(
  {
    account_name: Type.String({ examples: ['CHIOMA ADEBAYO'] }),
    account_number: Type.String({ examples: ['0123456789'] }),
    bank_code: Type.String({
      description: 'NIP institution code (6 digits), or the CBN code (3 digits) a sending bank gave.',
      examples: ['000013'],
    }),
    bank_name: Nullable(Type.String({ examples: ['GTBank'] })),
  },
  { title: 'Counterparty' },
);

export const Transaction = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    type: StringEnum(ENTRY_TYPES, {
      description: 'The direction: a credit added `amount` to the balance, a debit took it away.',
    }),
    kind: StringEnum(ENTRY_KINDS, {
      description:
        'inbound_transfer: money from another bank (in sandbox, simulated); transfer and fee: a transfer out and its fee; reversal: the bank returned a transfer; book_transfer: between two accounts of this institution.',
    }),
    amount: Type.Number({
      description: 'Naira, always positive: `type` gives the direction.',
      examples: [1500.5],
    }),
    amount_kobo: Type.Integer({ examples: [150050] }),
    balance_after: Type.Number({
      description: "Naira: the account's balance just after this entry.",
      examples: [1500.5],
    }),
    balance_after_kobo: Type.Integer({ examples: [150050] }),
    currency: Type.Literal('NGN'),
    narration: Nullable(Type.String()),
    reference: Type.String(),
    session_id: Nullable(
      Type.String({ description: 'The NIBSS session id of the interbank transfer, when there is one.' }),
    ),
    counterparty: Nullable(Counterparty),
    transfer_id: Nullable(Type.String({ description: 'The transfer this entry books, for money out.' })),
    created_at: Timestamp(),
  },
  { title: 'Transaction' },
);

/** A credit and the account after it: the answer of simulate-credit and the virtual_account.credited event. */
export const Credit = Type.Object({ transaction: Transaction, account: VirtualAccount }, { title: 'Credit' });
export const SimulateCreditResponse = Success(Credit, 'Account credited.');
export const SimulateCreditRepeatResponse = Success(
  Credit,
  'This session id was already credited: the earlier credit, not credited again.',
);
export const TransactionListResponse = Success(Page(Transaction), 'Transactions.');

export const Statement = Type.Object(
  {
    account_number: Type.String(),
    account_name: Type.String(),
    from: Type.String({ format: 'date' }),
    to: Type.String({ format: 'date' }),
    opening_balance: Type.Number({ description: 'Naira: the balance at the start of `from` (UTC).' }),
    opening_balance_kobo: Type.Integer(),
    total_credits: Type.Number({ description: 'Naira: the credits of the period.' }),
    total_credits_kobo: Type.Integer(),
    total_debits: Type.Number({ description: 'Naira: the debits of the period.' }),
    total_debits_kobo: Type.Integer(),
    closing_balance: Type.Number({
      description: 'Naira: opening balance plus the credits less the debits of the period.',
    }),
    closing_balance_kobo: Type.Integer(),
    transactions: Type.Array(Transaction, { description: "The period's entries, oldest first." }),
  },
  { title: 'Statement' },
);
export const StatementResponse = Success(Statement, 'Statement.');
