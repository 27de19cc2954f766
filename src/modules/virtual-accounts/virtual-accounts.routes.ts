import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import { credentialOf, requestMeta, withCheckedCredential } from '../../platform/http/auth.js';
import { csvDocument, wantsCsv } from '../../platform/http/csv.js';
import { operation } from '../../platform/http/route.js';
import { success } from '../../platform/http/schemas.js';
import { answerIdempotently } from '../../platform/idempotency/idempotency.js';
import { koboToDecimal } from './money.js';
import { statementCsv, statementJson } from './statement-render.js';
import {
  AccountListQuery,
  AccountParams,
  CreateVirtualAccountBody,
  LifecycleReasonBody,
  ListQuery,
  SimulateCreditBody,
  SimulateCreditRepeatResponse,
  SimulateCreditResponse,
  StatementQuery,
  StatementResponse,
  TransactionListResponse,
  VirtualAccount,
  VirtualAccountListResponse,
  VirtualAccountResponse,
} from './virtual-accounts.schemas.js';
import type { VirtualAccountsService } from './virtual-accounts.service.js';

const tags = ['Virtual accounts'];

const PATH = '/services/virtual-account';

const ACCOUNT_CSV_COLUMNS = [
  'account_number',
  'account_name',
  'bank_code',
  'bank_name',
  'status',
  'first_name',
  'last_name',
  'email',
  'phone',
  'balance',
  'available_balance',
  'environment',
  'created_at',
] as const;

const accountCsvCells = (account: Static<typeof VirtualAccount>) => [
  account.account_number,
  account.account_name,
  account.bank_code,
  account.bank_name,
  account.status,
  account.customer.first_name,
  account.customer.last_name,
  account.customer.email,
  account.customer.phone,
  koboToDecimal(account.balance_kobo),
  koboToDecimal(account.available_balance_kobo),
  account.environment,
  account.created_at,
];

export const virtualAccountsRoutes: FastifyPluginAsyncTypebox<{
  virtualAccounts: VirtualAccountsService;
}> = async (app, { virtualAccounts }) => {
  app.post(
    `${PATH}/create`,
    operation({
      operationId: 'createVirtualAccount',
      summary: 'Issue a dedicated NUBAN account number to an end user',
      description:
        'In the environment of the credential. One account per end-user e-mail per partner per environment: ' +
        'a second request gets 409 VIRTUAL_ACCOUNT_EXISTS with the existing account in `data`. ' +
        'Send an Idempotency-Key to retry safely.',
      tags,
      auth: 'partner',
      access: 'money',
      body: CreateVirtualAccountBody,
      idempotent: true,
      keyCheckedByWrite: true,
      response: { 201: VirtualAccountResponse },
      errors: ['VIRTUAL_ACCOUNT_EXISTS'],
      errorData: { VIRTUAL_ACCOUNT_EXISTS: VirtualAccount },
    }),
    async (request, reply) =>
      answerIdempotently(
        request,
        reply,
        201,
        () =>
          withCheckedCredential(request, (credential) =>
            virtualAccounts.create(credential, request.body, requestMeta(request)),
          ),
        (data) => success('Virtual account created.', data),
      ),
  );

  app.get(
    PATH,
    operation({
      operationId: 'listVirtualAccounts',
      summary: 'List or search virtual accounts of this environment, newest first',
      description:
        'Filters combine: status, email (exact, case-insensitive), created_from and created_to (inclusive; a ' +
        'date alone means that whole day, UTC), and q, a prefix of the account number, end-user e-mail, full ' +
        'name or last name. order=asc lists oldest first. total counts the whole filtered list (up to 10,000; ' +
        'total_capped says there are more). A next_cursor pages the same filtered list, in the same order, only. ' +
        'With `Accept: text/csv` the answer is every matching account (all pages; limit and cursor are ignored) as ' +
        'CSV, streamed: a header row `' +
        ACCOUNT_CSV_COLUMNS.join(',') +
        '`, every cell in double quotes (RFC 4180), ' +
        'balances in naira with 2 decimals, and a cell starting with =, +, -, @, tab or carriage return (or holding ' +
        'one right after a comma, semicolon or tab) prefixed with an apostrophe.',
      tags,
      auth: 'partner',
      access: 'read',
      querystring: AccountListQuery,
      response: { 200: VirtualAccountListResponse },
    }),
    async (request, reply) => {
      if (wantsCsv(request.headers.accept)) {
        const pages = virtualAccounts.exportPages(credentialOf(request), request.query);
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="virtual-accounts.csv"')
          .send(Readable.from(csvDocument(ACCOUNT_CSV_COLUMNS, pages, accountCsvCells)));
      }
      return success('Virtual accounts.', await virtualAccounts.list(credentialOf(request), request.query));
    },
  );

  app.get(
    `${PATH}/:account_number`,
    operation({
      operationId: 'getVirtualAccount',
      summary: 'Read a virtual account with its balance',
      description:
        "The account in this credential's environment, with its status and balance (the exact sum of its credits, in naira and in kobo). Another environment's or partner's account is 404.",
      tags,
      auth: 'partner',
      access: 'read',
      params: AccountParams,
      response: { 200: VirtualAccountResponse },
    }),
    async (request) =>
      success(
        'Virtual account.',
        await virtualAccounts.get(credentialOf(request), request.params.account_number),
      ),
  );

  app.post(
    `${PATH}/:account_number/simulate-credit`,
    operation({
      operationId: 'simulateVirtualAccountCredit',
      summary: 'Sandbox: simulate an incoming transfer',
      description:
        'Sandbox only (403 SANDBOX_ONLY in live). Runs the very code a live inbound transfer from the sponsor ' +
        'bank runs: one ledger entry (kind inbound_transfer) with the sender as counterparty and the NIBSS ' +
        'session id, and a virtual_account.credited webhook. Give originator and session_id to choose them. ' +
        'An account is credited once per session id: repeating one answers 200 with the earlier credit. ' +
        'An inactive or closed account refuses credits (409). Send an Idempotency-Key to retry safely.',
      tags,
      auth: 'partner',
      access: 'money',
      params: AccountParams,
      body: SimulateCreditBody,
      idempotent: true,
      response: { 201: SimulateCreditResponse, 200: SimulateCreditRepeatResponse },
      errors: ['SANDBOX_ONLY', 'ACCOUNT_INACTIVE', 'ACCOUNT_CLOSED'],
    }),
    async (request, reply) =>
      answerIdempotently(
        request,
        reply,
        (receipt) => (receipt.outcome === 'credited' ? 201 : 200),
        () =>
          virtualAccounts.simulateCredit(
            credentialOf(request),
            request.params.account_number,
            request.body,
            requestMeta(request),
          ),
        ({ outcome, transaction, account }) =>
          success(
            outcome === 'credited'
              ? 'Account credited.'
              : 'This session id was already credited: the earlier credit, not credited again.',
            { transaction, account },
          ),
      ),
  );

  app.post(
    `${PATH}/:account_number/deactivate`,
    operation({
      operationId: 'deactivateVirtualAccount',
      summary: 'Deactivate an account (active → inactive): it refuses credits until reactivated',
      description:
        'Credits (simulated or real) to an inactive account are refused with 409 ACCOUNT_INACTIVE. A credit ' +
        'racing the deactivation either lands before it or is refused. Sends virtual_account.status_changed.',
      tags,
      auth: 'partner',
      access: 'money',
      params: AccountParams,
      body: LifecycleReasonBody,
      idempotent: true,
      response: { 200: VirtualAccountResponse },
      errors: ['ACCOUNT_INACTIVE', 'ACCOUNT_CLOSED'],
    }),
    async (request, reply) =>
      answerIdempotently(
        request,
        reply,
        200,
        () =>
          virtualAccounts.deactivate(
            credentialOf(request),
            request.params.account_number,
            request.body.reason,
            requestMeta(request),
          ),
        (data) => success('Virtual account deactivated.', data),
      ),
  );

  app.post(
    `${PATH}/:account_number/reactivate`,
    operation({
      operationId: 'reactivateVirtualAccount',
      summary: 'Reactivate an inactive account (inactive → active)',
      description:
        'Reactivating an active account changes nothing and answers it as it is. A closed account is final ' +
        '(409 ACCOUNT_CLOSED). Sends virtual_account.status_changed.',
      tags,
      auth: 'partner',
      access: 'money',
      params: AccountParams,
      idempotent: true,
      response: { 200: VirtualAccountResponse },
      errors: ['ACCOUNT_CLOSED'],
    }),
    async (request, reply) =>
      answerIdempotently(
        request,
        reply,
        200,
        () =>
          virtualAccounts.reactivate(
            credentialOf(request),
            request.params.account_number,
            requestMeta(request),
          ),
        (data) => success('Virtual account active.', data),
      ),
  );

  app.post(
    `${PATH}/:account_number/close`,
    operation({
      operationId: 'closeVirtualAccount',
      summary: 'Close an account (final)',
      description:
        'A closed account takes no credits and cannot change again (409 ACCOUNT_CLOSED); its number is never ' +
        'issued again, and its end-user e-mail may get a new account. Sends virtual_account.status_changed.',
      tags,
      auth: 'partner',
      access: 'money',
      params: AccountParams,
      body: LifecycleReasonBody,
      idempotent: true,
      response: { 200: VirtualAccountResponse },
      errors: ['ACCOUNT_CLOSED'],
    }),
    async (request, reply) =>
      answerIdempotently(
        request,
        reply,
        200,
        () =>
          virtualAccounts.close(
            credentialOf(request),
            request.params.account_number,
            request.body.reason,
            requestMeta(request),
          ),
        (data) => success('Virtual account closed.', data),
      ),
  );

  app.get(
    `${PATH}/:account_number/statement`,
    operation({
      operationId: 'getVirtualAccountStatement',
      summary: 'Statement for whole days: opening balance, credits, closing balance (JSON or CSV)',
      description:
        'from and to (YYYY-MM-DD, UTC, both inclusive, at most 366 days) are required. The opening balance is ' +
        'every credit before from; balances are exact to the kobo, summed by the database from the ledger. ' +
        "With `Accept: text/csv` the period's transactions come as CSV (header row; every cell in double quotes; " +
        'amounts and running balance in naira with 2 decimals; a cell starting with =, +, -, @, tab or carriage ' +
        'return, or holding one right after a comma, semicolon or tab, is prefixed with an apostrophe, and so is ' +
        'each such character right after the separator, for spreadsheets that split on ";" or tab).',
      tags,
      auth: 'partner',
      access: 'read',
      params: AccountParams,
      querystring: StatementQuery,
      response: { 200: StatementResponse },
    }),
    async (request, reply) => {
      const statement = await virtualAccounts.statement(
        credentialOf(request),
        request.params.account_number,
        request.query,
      );
      if (wantsCsv(request.headers.accept)) {
        return reply
          .type('text/csv; charset=utf-8')
          .header(
            'content-disposition',
            `attachment; filename="statement-${statement.account_number}-${statement.from}-${statement.to}.csv"`,
          )
          .send(Readable.from(statementCsv(statement)));
      }
      // Streamed as it is read, so a long statement never sits whole in memory (the 200 schema documents it).
      return reply
        .type('application/json; charset=utf-8')
        .send(Readable.from(statementJson(statement, 'Statement.')));
    },
  );

  app.get(
    `${PATH}/:account_number/transactions`,
    operation({
      operationId: 'listVirtualAccountTransactions',
      summary: 'List credits to an account, newest first',
      description:
        'The ledger of one account: every credit with amount (naira and integer kobo), narration and reference. For a period with opening and closing balances, use the statement.',
      tags,
      auth: 'partner',
      access: 'read',
      params: AccountParams,
      querystring: ListQuery,
      response: { 200: TransactionListResponse },
    }),
    async (request) =>
      success(
        'Transactions.',
        await virtualAccounts.transactions(credentialOf(request), request.params.account_number, {
          limit: request.query.limit,
          ...(request.query.cursor !== undefined ? { cursor: request.query.cursor } : {}),
        }),
      ),
  );
};
