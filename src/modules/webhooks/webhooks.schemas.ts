import { type Static, Type } from '@sinclair/typebox';
import { Environment, Nullable, PaginationQuery, Success, Timestamp } from '../../platform/http/schemas.js';

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

export const DeliveriesQuery = Type.Object({
  ...PaginationQuery.properties,
  event_id: Type.Optional(Type.String({ maxLength: 64, description: 'Only the attempts of this event.' })),
});
export type DeliveriesQuery = Static<typeof DeliveriesQuery>;
export const DeliveryParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

export const EventParams = Type.Object({
  id: Type.String({
    pattern: '^msg_[0-9a-f]{32}$',
    description: 'The event id (the webhook-id of its deliveries).',
  }),
});
