import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { credentialOf, requestMeta } from '../../platform/http/auth.js';
import { operation } from '../../platform/http/route.js';
import { success } from '../../platform/http/schemas.js';
import { recordInTransaction } from '../../platform/idempotency/idempotency.js';
import {
  AccountParams,
  CreateVirtualAccountBody,
  ListQuery,
  SimulateCreditBody,
  SimulateCreditResponse,
  TransactionListResponse,
  VirtualAccount,
  VirtualAccountListResponse,
  VirtualAccountResponse,
} from './virtual-accounts.schemas.js';
import type { VirtualAccountsService } from './virtual-accounts.service.js';

const tags = ['Virtual accounts'];
const PATH = '/services/virtual-account';

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
      body: CreateVirtualAccountBody,
      idempotent: true,
      response: { 201: VirtualAccountResponse },
      errors: ['VIRTUAL_ACCOUNT_EXISTS'],
      errorData: { VIRTUAL_ACCOUNT_EXISTS: VirtualAccount },
    }),
    async (request, reply) => {
      const envelope = <T>(data: T) => success('Virtual account created.', data);
      const data = await virtualAccounts.create(
        credentialOf(request),
        request.body,
        requestMeta(request),
        recordInTransaction(request, 201, envelope),
      );
      return reply.code(201).send(envelope(data));
    },
  );

  app.get(
    PATH,
    operation({
      operationId: 'listVirtualAccounts',
      summary: 'List virtual accounts of this environment, newest first',
      tags,
      auth: 'partner',
      querystring: ListQuery,
      response: { 200: VirtualAccountListResponse },
    }),
    async (request) =>
      success(
        'Virtual accounts.',
        await virtualAccounts.list(credentialOf(request), {
          limit: request.query.limit,
          ...(request.query.cursor !== undefined ? { cursor: request.query.cursor } : {}),
        }),
      ),
  );

  app.get(
    `${PATH}/:account_number`,
    operation({
      operationId: 'getVirtualAccount',
      summary: 'Read a virtual account with its balance',
      tags,
      auth: 'partner',
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
        'Sandbox only (403 SANDBOX_ONLY in live). The credit is added to the ledger in kobo and a ' +
        'virtual_account.credited webhook is queued. Send an Idempotency-Key to retry safely.',
      tags,
      auth: 'partner',
      params: AccountParams,
      body: SimulateCreditBody,
      idempotent: true,
      response: { 201: SimulateCreditResponse },
      errors: ['SANDBOX_ONLY'],
    }),
    async (request, reply) => {
      const envelope = <T>(data: T) => success('Account credited.', data);
      const data = await virtualAccounts.simulateCredit(
        credentialOf(request),
        request.params.account_number,
        request.body,
        requestMeta(request),
        recordInTransaction(request, 201, envelope),
      );
      return reply.code(201).send(envelope(data));
    },
  );

  app.get(
    `${PATH}/:account_number/transactions`,
    operation({
      operationId: 'listVirtualAccountTransactions',
      summary: 'List credits to an account, newest first',
      tags,
      auth: 'partner',
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
