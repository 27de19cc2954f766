import { type Static, Type } from '@sinclair/typebox';
import {
  Email,
  Environment,
  Nullable,
  Page,
  PaginationQuery,
  Phone,
  Success,
  Timestamp,
} from '../../platform/http/schemas.js';

export const MAX_CREDIT_KOBO = 1_000_000_000;

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

export const VirtualAccount = Type.Object({
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
  status: Type.Literal('active'),
  balance: Type.Number({
    description: 'Naira: the sum of credits (kept in integer kobo).',
    examples: [1500.5],
  }),
  balance_kobo: Type.Integer({ description: 'The same balance in integer kobo.', examples: [150050] }),
  environment: Environment,
  customer: Type.Object({
    first_name: Type.String(),
    last_name: Type.String(),
    email: Type.String({ format: 'email' }),
    phone: Type.String(),
  }),
  created_at: Timestamp(),
});

export const VirtualAccountResponse = Success(VirtualAccount, 'Virtual account.');
export const VirtualAccountListResponse = Success(Page(VirtualAccount), 'Virtual accounts.');

export const AccountParams = Type.Object({
  account_number: Type.String({ pattern: '^[0-9]{10}$', description: '10-digit account number.' }),
});
export type AccountParams = Static<typeof AccountParams>;

export const ListQuery = PaginationQuery;

export const SimulateCreditBody = Type.Object(
  {
    amount: Type.Unsafe<number | string>({
      type: ['number', 'string'],
      maxLength: 20,
      description:
        'Naira, greater than 0, at most 2 decimals and at most 10,000,000.00 per credit. A JSON number or a decimal string ("1500.50").',
      examples: [1500.5],
    }),
    narration: Type.Optional(Type.String({ maxLength: 255, examples: ['Test transfer'] })),
  },
  { examples: [{ amount: 1500.5, narration: 'Test transfer' }] },
);
export type SimulateCreditBody = Static<typeof SimulateCreditBody>;

export const Transaction = Type.Object({
  id: Type.String({ format: 'uuid' }),
  type: Type.Literal('credit'),
  amount: Type.Number({ examples: [1500.5] }),
  amount_kobo: Type.Integer({ examples: [150050] }),
  currency: Type.Literal('NGN'),
  narration: Nullable(Type.String()),
  reference: Type.String(),
  created_at: Timestamp(),
});

export const SimulateCreditResponse = Success(
  Type.Object({ transaction: Transaction, account: VirtualAccount }),
  'Account credited.',
);
export const TransactionListResponse = Success(Page(Transaction), 'Transactions.');
