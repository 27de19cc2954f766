import { type Static, Type } from '@sinclair/typebox';
import type { EventCatalog } from '../../platform/events/catalog.js';
import {
  CreatedRange,
  Environment,
  Nullable,
  Page,
  PaginationQuery,
  StringEnum,
  Success,
  Timestamp,
} from '../../platform/http/schemas.js';

/** `virtual_account.created` → `VirtualAccountCreated`: the stem of the type's schema names. */
export const pascalName = (type: string): string =>
  type.replace(/(^|[._])(\w)/g, (_, _separator: string, letter: string) => letter.toUpperCase());

const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'skipped'] as const;

const EventDelivery = Type.Object(
  {
    status: StringEnum([...DELIVERY_STATUSES], {
      description:
        'pending: being delivered or waiting for a retry; delivered: a 2xx came; failed: retries ran out ' +
        '(24 hours), or the one attempt of a webhook.test event failed; skipped: no endpoint was set when ' +
        'the event happened (or it was removed before delivery).',
    }),
    attempts: Type.Integer({ minimum: 0 }),
    delivered_at: Nullable(Timestamp()),
    next_attempt_at: Nullable(
      Timestamp(
        'When the next automatic attempt is due (status pending); a time already past means it is being sent now. ' +
          'null when the event is delivered, failed or skipped.',
      ),
    ),
  },
  { title: 'EventDelivery' },
);

/**
 * The schemas that name event types, made from the catalog the modules declared (composition root):
 * the same schemas serialize what is stored and delivered, describe the events API and fill the
 * OpenAPI document's `webhooks`, so a payload cannot drift from its documentation.
 */
export function createEventSchemas(catalog: EventCatalog) {
  const types = Object.keys(catalog);
  const EventType = StringEnum(types);

  const DeliveryAttempt = Type.Object(
    {
      id: Type.String({ format: 'uuid' }),
      event_id: Type.String({ description: 'The webhook-id header: the same on every attempt of an event.' }),
      event_type: EventType,
      attempt: Type.Integer({ minimum: 1 }),
      trigger: StringEnum(['automatic', 'manual']),
      url: Type.String(),
      status: StringEnum(['succeeded', 'failed', 'in_flight', 'outcome_unknown'], {
        description:
          'succeeded (a 2xx answer) or failed (see error); in_flight while the request is on its way (an ' +
          'attempt is recorded before it is sent); outcome_unknown when its outcome was never recorded (the ' +
          'service stopped or lost its database mid-attempt): the receiver may have got it, and the event ' +
          'is sent again with the same webhook-id.',
      }),
      succeeded: Type.Boolean({ description: 'true only when status is succeeded.' }),
      status_code: Nullable(
        Type.Integer({ description: 'null when no HTTP answer came (timeout, refused).' }),
      ),
      latency_ms: Type.Integer({
        minimum: 0,
        description: 'Time until the HTTP answer arrived; 0 when none came (status_code null).',
      }),
      response_body_excerpt: Nullable(
        Type.String({
          description:
            "The start of the receiver's answer, to see why it refused: at most its first 500 bytes as UTF-8 " +
            'text (control characters other than tab and newline removed), read for at most 2 s after the ' +
            'status. null when no answer came or its body was empty. Never holds the request or its signature.',
          maxLength: 500,
          examples: ['{"error":"unknown account"}'],
        }),
      ),
      error: Nullable(
        Type.String({
          description:
            'null on success; otherwise one of: http_<status> (the receiver answered a non-2xx status, ' +
            'e.g. http_500; redirects are not followed), timeout (no answer within the delivery timeout, 10 s), ' +
            'connection_failed (the host did not resolve, the connection was refused or dropped, TLS ' +
            'failed, or the answer was not HTTP), destination_not_allowed (the host resolved to an ' +
            'address webhooks may not be sent to).',
          examples: ['http_500', 'timeout', 'connection_failed', 'destination_not_allowed'],
        }),
      ),
      created_at: Timestamp(
        'When the outcome was recorded; for an attempt in_flight or of unknown outcome, when it was sent.',
      ),
    },
    { title: 'DeliveryAttempt' },
  );

  /** One event type's resource: `data` is that type's payload. */
  const eventOf = (type: string) =>
    Type.Object(
      {
        id: Type.String({
          description: 'The webhook-id of every delivery of this event.',
          examples: ['msg_0193a1b2c3d4e5f60718293a4b5c6d7e'],
        }),
        type: Type.Literal(type),
        environment: Environment,
        created_at: Timestamp('When it happened: the `timestamp` of its deliveries.'),
        data: catalog[type]!.payload,
        delivery: EventDelivery,
      },
      { title: `${pascalName(type)}Event` },
    );

  /** An event as kept for 30 days: what was delivered as `{type, timestamp, data}`, and how delivery went. */
  const Event = Type.Union(types.map(eventOf), {
    title: 'Event',
    description: 'One of the event types, told apart by `type`; `data` is exactly what was delivered.',
  });

  /** The delivered body of an event type: `{type, timestamp, data}`. */
  const eventBodySchema = (type: string) =>
    Type.Object(
      {
        type: Type.Literal(type),
        timestamp: Timestamp('When the event happened (its creation), not when this attempt was sent.'),
        data: catalog[type]!.payload,
      },
      { title: `${pascalName(type)}Webhook`, description: catalog[type]!.description },
    );

  return {
    DeliveriesResponse: Success(Page(DeliveryAttempt), 'Delivery attempts.'),
    RetryResponse: Success(DeliveryAttempt, 'Delivery retried.'),
    TestEventResponse: Success(DeliveryAttempt, 'Test event sent.'),
    EventsQuery: Type.Object({
      ...PaginationQuery.properties,
      type: Type.Optional(EventType),
      delivery_status: Type.Optional(
        StringEnum([...DELIVERY_STATUSES], {
          description:
            'Only the events whose delivery is in this state, e.g. failed to find what to redeliver.',
        }),
      ),
      ...CreatedRange,
    }),
    EventResponse: Success(Event, 'Event.'),
    EventListResponse: Success(Page(Event), 'Events.'),
    RedeliverResponse: Success(Event, 'Redelivery queued.'),

    /** The OpenAPI 3.1 `webhooks` section: one operation per event type, the payload as its request body. */
    webhooksDocument(): Record<string, unknown> {
      return Object.fromEntries(
        types.map((type) => [
          type,
          {
            post: {
              operationId: `${pascalName(type).replace(/^./, (letter) => letter.toLowerCase())}Webhook`,
              summary: catalog[type]!.description,
              description:
                "POSTed to the environment's endpoint with Standard Webhooks headers webhook-id (the event id, " +
                'stable across retries), webhook-timestamp and webhook-signature (v1,<base64 HMAC-SHA256 of ' +
                '"<id>.<timestamp>.<body>"> under the endpoint secret). Answer 2xx within 10 s; anything else is retried.',
              tags: ['Webhooks'],
              // Authenticated by its signature (webhook-signature), not by a credential of the API.
              security: [],
              requestBody: {
                required: true,
                content: { 'application/json': { schema: eventBodySchema(type) } },
              },
              responses: { '200': { description: 'Any 2xx acknowledges the event.' } },
            },
          },
        ]),
      );
    },
  };
}

export type EventSchemas = ReturnType<typeof createEventSchemas>;
export type EventsQuery = Static<EventSchemas['EventsQuery']>;
