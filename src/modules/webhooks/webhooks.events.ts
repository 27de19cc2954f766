import { Type } from '@sinclair/typebox';
import { defineEvents } from '../../platform/events/catalog.js';

export const WebhookTestPayload = Type.Object(
  {
    message: Type.String({
      description: 'Says that this is a test: it reports no change, so a receiver only acknowledges it.',
      examples: ['This is a test event from the BaaS partner API.'],
    }),
  },
  { title: 'WebhookTestData' },
);

/** The webhooks module's own event: a test a partner asks for, to see that its receiver answers. */
export const WEBHOOK_EVENTS = defineEvents({
  'webhook.test': {
    payload: WebhookTestPayload,
    description:
      'A test you asked for (POST /services/partner/settings/webhook/test, or the dashboard): nothing changed; answer 2xx as to any event.',
  },
});
