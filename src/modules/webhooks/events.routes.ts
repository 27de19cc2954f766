import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { credentialOf, requestMeta } from '../../platform/http/auth.js';
import { operation } from '../../platform/http/route.js';
import { success } from '../../platform/http/schemas.js';
import { answerIdempotently } from '../../platform/idempotency/idempotency.js';
import type { EventSchemas } from './events.schemas.js';
import { EventParams } from './webhooks.schemas.js';
import type { WebhooksService } from './webhooks.service.js';

const tags = ['Events'];
const PATH = '/services/events';

/**
 * Every webhook-worthy change as a resource, kept 30 days, redeliverable (docs/partner-guide.md,
 * "Webhooks").
 */
export const eventsRoutes: FastifyPluginAsyncTypebox<{
  webhooks: WebhooksService;
  schemas: EventSchemas;
}> = async (app, { webhooks, schemas }) => {
  const { EventListResponse, EventResponse, EventsQuery, RedeliverResponse } = schemas;
  app.get(
    PATH,
    operation({
      operationId: 'listEvents',
      summary: "This environment's events of the last 30 days, newest first",
      description:
        'Recover what your webhook endpoint missed. Filters combine: type, created_from and created_to ' +
        '(inclusive; a date alone means that whole day, UTC). A next_cursor pages the same filtered list only.',
      tags,
      auth: 'partner',
      access: 'read',
      querystring: EventsQuery,
      response: { 200: EventListResponse },
    }),
    async (request) => success('Events.', await webhooks.listEvents(credentialOf(request), request.query)),
  );

  app.get(
    `${PATH}/:id`,
    operation({
      operationId: 'getEvent',
      summary: 'One event, with its payload exactly as delivered and its delivery status',
      description:
        "The event as kept for 30 days: its data exactly as delivered (webhook-id = id) and how its delivery went. Another partner's or environment's event is 404.",
      tags,
      auth: 'partner',
      access: 'read',
      params: EventParams,
      response: { 200: EventResponse },
    }),
    async (request) => success('Event.', await webhooks.getEvent(credentialOf(request), request.params.id)),
  );

  app.post(
    `${PATH}/:id/redeliver`,
    operation({
      operationId: 'redeliverEvent',
      summary: 'Send an event once more to the current endpoint (202)',
      description:
        'Queues one more delivery with the same webhook-id (fresh timestamp and signature), sent at once and ' +
        'shown in the delivery log; an event being delivered at this moment is left to that attempt. 409 ' +
        'WEBHOOK_ENDPOINT_REQUIRED when this environment has no endpoint. Manual resends (redeliveries, test events and ' +
        'delivery retries together) are limited to 10 a minute per partner (429 RATE_LIMITED).',
      tags,
      auth: 'partner',
      access: 'webhooks',
      params: EventParams,
      idempotent: true,
      response: { 202: RedeliverResponse },
      errors: ['WEBHOOK_ENDPOINT_REQUIRED'],
    }),
    async (request, reply) =>
      answerIdempotently(
        request,
        reply,
        202,
        () => webhooks.redeliverEvent(credentialOf(request), request.params.id, requestMeta(request)),
        (data) => success('Redelivery queued.', data),
      ),
  );
};
