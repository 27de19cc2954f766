import { type Static, Type } from '@sinclair/typebox';
import { EVENT_TYPES, type EventType } from '../../platform/events/outbox.repository.js';
import {
  Environment,
  Nullable,
  Page,
  PaginationQuery,
  StringEnum,
  Success,
  Timestamp,
} from '../../platform/http/schemas.js';
import { CreatedRange } from '../virtual-accounts/virtual-accounts.schemas.js';
import { EVENT_PAYLOADS, pascalName } from './event-payloads.js';

export const SetWebhookBody = Type.Object(
  {
    url: Type.String({
      format: 'url',
      maxLength: 2048,
      description:
        'Where events are POSTed. Live: https. The host must resolve to public addresses only, in ' +
        'sandbox too in production; a development sandbox may use private and loopback addresses, ' +
        'never link-local (cloud metadata). IPv6 forms that carry an IPv4 address count as that address.',
      examples: ['https://hooks.acme.ng/baas'],
    }),
  },
  { examples: [{ url: 'https://hooks.acme.ng/baas' }] },
);
export type SetWebhookBody = Static<typeof SetWebhookBody>;

const EndpointFields = {
  url: Type.String(),
  environment: Environment,
  previous_secret_expires_at: Nullable(
    Timestamp('Until then the previous secret also signs each delivery (space-separated signatures).'),
  ),
  created_at: Timestamp(),
  updated_at: Timestamp(),
};

const Secret = Type.String({
  description: 'Signing secret (whsec_ + base64): verify deliveries with any Standard Webhooks library.',
  examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
});

export const WebhookWithSecretResponse = Success(
  Type.Object({ ...EndpointFields, secret: Secret }, { title: 'WebhookEndpointWithSecret' }),
  'Webhook endpoint set.',
);

export const WEBHOOK_SECRET_REPLAY_MESSAGE =
  'Webhook secret rotated earlier with this Idempotency-Key. The new secret was shown only in the first response and is not replayed: if it was lost, rotate again.';

export const RotatedWebhookResponse = Success(
  Type.Object(
    {
      ...EndpointFields,
      secret: Nullable(
        Type.String({
          description: `${Secret.description} null in an idempotent replay (Idempotent-Replayed: true): the new secret is shown only in the first response, so a replay cannot show it again; if that response was lost, rotate again.`,
          examples: Secret.examples,
        }),
      ),
    },
    { title: 'RotatedWebhookEndpoint' },
  ),
  'Webhook secret rotated.',
);
export const WebhookResponse = Success(
  Type.Object(EndpointFields, { title: 'WebhookEndpoint' }),
  'Webhook endpoint.',
);

export const DeliveryAttempt = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    event_id: Type.String({ description: 'The webhook-id header: the same on every attempt of an event.' }),
    event_type: StringEnum(EVENT_TYPES),
    attempt: Type.Integer({ minimum: 1 }),
    trigger: StringEnum(['automatic', 'manual']),
    url: Type.String(),
    succeeded: Type.Boolean(),
    status_code: Nullable(Type.Integer({ description: 'null when no HTTP answer came (timeout, refused).' })),
    latency_ms: Type.Integer({
      minimum: 0,
      description: 'Time until the HTTP answer arrived; 0 when none came (status_code null).',
    }),
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
    created_at: Timestamp(),
  },
  { title: 'DeliveryAttempt' },
);

export const DeliveriesQuery = Type.Object({
  ...PaginationQuery.properties,
  event_id: Type.Optional(Type.String({ maxLength: 64, description: 'Only the attempts of this event.' })),
});
export type DeliveriesQuery = Static<typeof DeliveriesQuery>;
export const DeliveriesResponse = Success(Page(DeliveryAttempt), 'Delivery attempts.');
export const DeliveryParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
export const RetryResponse = Success(DeliveryAttempt, 'Delivery retried.');

export const EventParams = Type.Object({
  id: Type.String({
    pattern: '^msg_[0-9a-f]{32}$',
    description: 'The event id (the webhook-id of its deliveries).',
  }),
});

export const EventsQuery = Type.Object({
  ...PaginationQuery.properties,
  type: Type.Optional(StringEnum(EVENT_TYPES)),
  ...CreatedRange,
});
export type EventsQuery = Static<typeof EventsQuery>;

const EventDelivery = Type.Object(
  {
    status: StringEnum(['pending', 'delivered', 'failed', 'skipped'], {
      description:
        'pending: being delivered or waiting for a retry; delivered: a 2xx came; failed: retries ran out ' +
        '(24 hours); skipped: no endpoint was set when the event happened (or it was removed before delivery).',
    }),
    attempts: Type.Integer({ minimum: 0 }),
    delivered_at: Nullable(Timestamp()),
  },
  { title: 'EventDelivery' },
);

/** One event type's resource: `data` is that type's payload. */
const eventOf = (type: EventType) =>
  Type.Object(
    {
      id: Type.String({
        description: 'The webhook-id of every delivery of this event.',
        examples: ['msg_0193a1b2c3d4e5f60718293a4b5c6d7e'],
      }),
      type: Type.Literal(type),
      environment: Environment,
      created_at: Timestamp('When it happened: the `timestamp` of its deliveries.'),
      data: EVENT_PAYLOADS[type],
      delivery: EventDelivery,
    },
    { title: `${pascalName(type)}Event` },
  );

/** An event as kept for 30 days: what was delivered as `{type, timestamp, data}`, and how delivery went. */
export const Event = Type.Union(EVENT_TYPES.map(eventOf), {
  title: 'Event',
  description: 'One of the event types, told apart by `type`; `data` is exactly what was delivered.',
});

export const EventResponse = Success(Event, 'Event.');
export const EventListResponse = Success(Page(Event), 'Events.');
export const RedeliverResponse = Success(Event, 'Redelivery queued.');
