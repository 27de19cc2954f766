import type { BlockList } from 'node:net';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Clock } from '../../platform/clock.js';
import { requestMeta } from '../../platform/http/auth.js';
import { operation } from '../../platform/http/route.js';
import { Success, success } from '../../platform/http/schemas.js';
import { extend } from '../../platform/objects.js';
import type { Settlement } from '../transfers/settlement.js';
import {
  CreditNotificationBody,
  CreditNotificationListResponse,
  CreditNotificationResponse,
  CreditNotificationsQuery,
  TransferUpdateBody,
  TransferUpdateResult,
} from './bank.schemas.js';
import type { BankService } from './bank.service.js';
import { connectorGuard } from './connector-guard.js';

const tags = ['Bank connector'];

/**
 * What the sponsor bank's connector calls. Registered only when BANK_CONNECTOR_SECRET is set, so
 * without it every /bank path is an unknown route (404).
 */
export const bankConnectorRoutes: FastifyPluginAsyncTypebox<{
  bank: BankService;
  settlement: Settlement;
  secret: string;
  allowList: BlockList | undefined;
  clock: Clock;
}> = async (app, { bank, settlement, secret, allowList, clock }) => {
  const guard = connectorGuard({ secret, allowList, clock });
  app.addHook('onRequest', guard.onRequest);
  app.addHook('preValidation', guard.preValidation);
  const connector = (spec: Parameters<typeof operation>[0]) => {
    const route = operation(spec);
    return extend(route, { config: extend(route.config, { verifyBody: guard.verifyBody }) });
  };

  app.post(
    '/bank/credit-notifications',
    connector({
      operationId: 'notifyCredit',
      summary: 'Connector: an inward NIP transfer reached a live virtual account',
      description:
        'Credits the live virtual account with that number once per NIBSS session_id: 200 credited the first ' +
        'time; the same session_id again, concurrently or after a crash, 200 duplicate with the earlier ' +
        'transaction and no second credit. 409 ACCOUNT_INACTIVE / ACCOUNT_CLOSED and 404 NOT_FOUND refuse it: ' +
        'return the money to the sender. Any other answer or none: retry with the same session_id. Every ' +
        'notification is kept with its outcome. Text fields are cleaned of control and bidirectional ' +
        'characters rather than refused.',
      tags,
      auth: 'connector',
      body: CreditNotificationBody,
      response: { 200: CreditNotificationResponse },
      errors: ['NOT_FOUND', 'ACCOUNT_INACTIVE', 'ACCOUNT_CLOSED'],
      rateLimit: false,
    }),
    async (request) => {
      const receipt = await bank.creditNotification(
        request.body as CreditNotificationBody,
        requestMeta(request),
      );
      return success(receipt.outcome === 'credited' ? 'Credited.' : 'Already credited.', receipt);
    },
  );

  app.post(
    '/bank/transfer-updates',
    connector({
      operationId: 'updateTransfer',
      summary: "Connector: the bank's later word on an outbound transfer",
      description:
        'The reference is the one we gave the connector with the transfer (our transfer id). Applied once, in ' +
        'the order the states allow: processing → successful → reversed, processing → failed (a `reversed` for ' +
        'a processing transfer books its success, then the reversal). A repeat or older news changes nothing ' +
        '(200, outcome `unchanged`); news contradicting a final state (a failed transfer succeeding, a ' +
        'successful one failing) is 409 TRANSFER_STATE_CONFLICT, logged for an operator. A reference of no ' +
        'live transfer handed to the bank is 404.',
      tags,
      auth: 'connector',
      body: TransferUpdateBody,
      response: { 200: Success(TransferUpdateResult, 'Transfer updated.') },
      errors: ['NOT_FOUND', 'TRANSFER_STATE_CONFLICT'],
      rateLimit: false,
    }),
    async (request) => {
      const result = await settlement.connectorUpdate(request.body as TransferUpdateBody);
      return success(result.outcome === 'applied' ? 'Transfer updated.' : 'Nothing changed.', result);
    },
  );
};

/** The operators' view of the connector's notifications (back office). */
export const bankAdminRoutes: FastifyPluginAsyncTypebox<{ bank: BankService }> = async (app, { bank }) => {
  app.get(
    '/admin/bank/credit-notifications',
    operation({
      operationId: 'listCreditNotifications',
      summary: "The sponsor bank's credit notifications, newest first",
      description:
        'Every notification with a well-formed body: credited, duplicate (its session id was credited before) ' +
        'or refused (error_code NOT_FOUND, ACCOUNT_INACTIVE or ACCOUNT_CLOSED), with the account and partner ' +
        'it named. from/to bound received_at; a date alone means that whole UTC day.',
      tags: ['Back office'],
      auth: 'admin',
      querystring: CreditNotificationsQuery,
      response: { 200: CreditNotificationListResponse },
    }),
    async (request) => success('Credit notifications.', await bank.listNotifications(request.query)),
  );
};
