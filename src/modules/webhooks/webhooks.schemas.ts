import { type Static, Type } from '@sinclair/typebox';
import {
  Environment,
  Nullable,
  Page,
  PaginationQuery,
  StringEnum,
  Success,
  Timestamp,
} from '../../platform/http/schemas.js';

export const WEBHOOK_EVENT_TYPES = [
  'virtual_account.created',
  'virtual_account.credited',
  'onboarding.status_changed',
  'document.reviewed',
] as const;

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
  Type.Object({ ...EndpointFields, secret: Secret }),
  'Webhook endpoint set.',
);
export const WebhookResponse = Success(Type.Object(EndpointFields), 'Webhook endpoint.');

export const DeliveryAttempt = Type.Object({
  id: Type.String({ format: 'uuid' }),
  event_id: Type.String({ description: 'The webhook-id header: the same on every attempt of an event.' }),
  event_type: StringEnum(WEBHOOK_EVENT_TYPES),
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
});

export const DeliveriesQuery = Type.Object({
  ...PaginationQuery.properties,
  event_id: Type.Optional(Type.String({ maxLength: 64, description: 'Only the attempts of this event.' })),
});
export type DeliveriesQuery = Static<typeof DeliveriesQuery>;
export const DeliveriesResponse = Success(Page(DeliveryAttempt), 'Delivery attempts.');
export const DeliveryParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
export const RetryResponse = Success(DeliveryAttempt, 'Delivery retried.');
