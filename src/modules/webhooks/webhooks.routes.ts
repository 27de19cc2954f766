import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { credentialOf, requestMeta } from '../../platform/http/auth.js';
import { operation } from '../../platform/http/route.js';
import { success } from '../../platform/http/schemas.js';
import { answerIdempotently, withoutSecret } from '../../platform/idempotency/idempotency.js';
import type { EventSchemas } from './events.schemas.js';
import {
  DeliveriesQuery,
  DeliveryParams,
  RotatedWebhookResponse,
  SetWebhookBody,
  WEBHOOK_SECRET_REPLAY_MESSAGE,
  WebhookResponse,
  WebhookWithSecretResponse,
} from './webhooks.schemas.js';
import type { WebhooksService } from './webhooks.service.js';

const tags = ['Webhooks'];
const PATH = '/services/partner/settings/webhook';

export const webhooksRoutes: FastifyPluginAsyncTypebox<{
  webhooks: WebhooksService;
  schemas: EventSchemas;
}> = async (app, { webhooks, schemas }) => {
  const { DeliveriesResponse, RetryResponse, TestEventResponse } = schemas;
  app.put(
    PATH,
    operation({
      operationId: 'setWebhookEndpoint',
      summary: "Set this environment's webhook URL",
      description:
        'Events (virtual_account.created, virtual_account.credited, onboarding.status_changed, document.reviewed) ' +
        'are POSTed as {type, timestamp, data} with Standard Webhooks headers webhook-id, webhook-timestamp and ' +
        'webhook-signature. Any non-2xx answer or no answer within 10 s is retried with exponential backoff ' +
        '(WEBHOOK_RETRY_BASE_MS, doubling) for 24 hours, with the same webhook-id. The first set returns a new ' +
        'secret (201); changing the URL keeps the secret (200). Events of an environment without an endpoint ' +
        'when they happen are skipped (the events API can redeliver them).',
      tags,
      auth: 'partner',
      access: 'webhooks',
      body: SetWebhookBody,
      response: { 201: WebhookWithSecretResponse, 200: WebhookWithSecretResponse },
    }),
    async (request, reply) => {
      const { created, data } = await webhooks.setEndpoint(
        credentialOf(request),
        request.body.url,
        requestMeta(request),
      );
      return reply.code(created ? 201 : 200).send(success('Webhook endpoint set.', data));
    },
  );

  app.get(
    PATH,
    operation({
      operationId: 'getWebhookEndpoint',
      summary: "Read this environment's webhook endpoint (without the secret)",
      description:
        'The URL, and until when a rotated-out secret still signs. The secret itself is shown only when set or rotated. 404 while none is set.',
      tags,
      auth: 'partner',
      access: 'read',
      response: { 200: WebhookResponse },
      errors: ['NOT_FOUND'],
    }),
    async (request) => success('Webhook endpoint.', await webhooks.getEndpoint(credentialOf(request))),
  );

  app.delete(
    PATH,
    operation({
      operationId: 'deleteWebhookEndpoint',
      summary: "Remove this environment's webhook endpoint",
      description:
        'Stops deliveries of this environment: events dispatched while no endpoint is set are skipped (recover them later with the events API). 404 while none is set.',
      tags,
      auth: 'partner',
      access: 'webhooks',
      response: { 200: WebhookResponse },
      errors: ['NOT_FOUND'],
    }),
    async (request) =>
      success(
        'Webhook endpoint removed.',
        await webhooks.deleteEndpoint(credentialOf(request), requestMeta(request)),
      ),
  );

  app.post(
    `${PATH}/rotate-secret`,
    operation({
      operationId: 'rotateWebhookSecret',
      summary: 'Rotate the signing secret',
      description:
        'Returns the new secret. For 24 hours each delivery is signed with both (space-separated), so receivers can switch over. ' +
        'An idempotent replay answers the same endpoint without the secret (`secret: null`).',
      tags,
      auth: 'partner',
      access: 'webhooks',
      idempotent: true,
      replayBody: withoutSecret('secret', WEBHOOK_SECRET_REPLAY_MESSAGE),
      response: { 200: RotatedWebhookResponse },
      errors: ['NOT_FOUND'],
    }),
    async (request, reply) =>
      answerIdempotently(
        request,
        reply,
        200,
        () => webhooks.rotateSecret(credentialOf(request), requestMeta(request)),
        (data) => success('Webhook secret rotated.', data),
      ),
  );

  app.post(
    `${PATH}/test`,
    operation({
      operationId: 'sendWebhookTestEvent',
      summary: 'Send a test event to the endpoint now',
      description:
        "Makes a webhook.test event and POSTs it at once, signed like every event, to this environment's " +
        'endpoint; answers 201 with the attempt: status_code, latency_ms, error and response_body_excerpt ' +
        '(succeeded false when the receiver refused it: the request itself still succeeded). The event is ' +
        'kept like any other (events API, delivery log) but never retried automatically; redeliver it or send ' +
        'another test. 409 WEBHOOK_ENDPOINT_REQUIRED when this environment has no endpoint. Counts toward the ' +
        'manual resend limit (10 a minute per partner, 429 RATE_LIMITED).',
      tags,
      auth: 'partner',
      access: 'webhooks',
      idempotent: true,
      response: { 201: TestEventResponse },
      errors: ['WEBHOOK_ENDPOINT_REQUIRED'],
    }),
    async (request, reply) =>
      answerIdempotently(
        request,
        reply,
        201,
        () => webhooks.sendTestEvent(credentialOf(request), requestMeta(request)),
        (data) => success(data.succeeded ? 'Test event delivered.' : 'Test event not accepted.', data),
      ),
  );

  app.get(
    `${PATH}/deliveries`,
    operation({
      operationId: 'listWebhookDeliveries',
      summary: 'Delivery log: every attempt, newest first',
      description:
        'Every delivery attempt of this environment, automatic and manual, newest first: status code, latency, and a generic error (http_<status>, timeout, connection_failed, destination_not_allowed). Filter by event_id.',
      tags,
      auth: 'partner',
      access: 'read',
      querystring: DeliveriesQuery,
      response: { 200: DeliveriesResponse },
    }),
    async (request) =>
      success(
        'Delivery attempts.',
        await webhooks.listDeliveries(credentialOf(request), {
          limit: request.query.limit,
          ...(request.query.cursor !== undefined ? { cursor: request.query.cursor } : {}),
          ...(request.query.event_id !== undefined ? { eventId: request.query.event_id } : {}),
        }),
      ),
  );

  app.post(
    `${PATH}/deliveries/:id/retry`,
    operation({
      operationId: 'retryWebhookDelivery',
      summary: "Resend an attempt's event now",
      description:
        'Sends the event again (same webhook-id, fresh timestamp and signature) and records a manual attempt (201).',
      tags,
      auth: 'partner',
      access: 'webhooks',
      params: DeliveryParams,
      idempotent: true,
      response: { 201: RetryResponse },
    }),
    async (request, reply) =>
      answerIdempotently(
        request,
        reply,
        201,
        () => webhooks.retryDelivery(credentialOf(request), request.params.id, requestMeta(request)),
        (data) => success(data.succeeded ? 'Delivered.' : 'Delivery failed again.', data),
      ),
  );
};
