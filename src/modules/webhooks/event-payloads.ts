import { type TSchema, Type } from '@sinclair/typebox';
import type { EventSerializer, EventType } from '../../platform/events/outbox.repository.js';
import { Nullable, StringEnum, Timestamp } from '../../platform/http/schemas.js';
import { compileSerializer } from '../../platform/http/validation.js';
import { DOCUMENT_STATUSES, DOCUMENT_TYPES } from '../onboarding/onboarding.schemas.js';
import { ONBOARDING_STATUSES } from '../partners/partners.schemas.js';
import { Credit, VirtualAccount } from '../virtual-accounts/virtual-accounts.schemas.js';

/**
 * The `data` of every event type. The same schemas serialize what is stored and delivered
 * (createEventSerializer), describe the events API and fill the OpenAPI document's `webhooks`: a
 * payload cannot drift from its documentation.
 */
export const EVENT_PAYLOADS = {
  'virtual_account.created': VirtualAccount,
  'virtual_account.credited': Credit,
  'virtual_account.status_changed': VirtualAccount,
  'onboarding.status_changed': Type.Object(
    {
      company_id: Type.Integer(),
      onboarding_status: StringEnum(ONBOARDING_STATUSES),
      review_notes: Nullable(Type.String()),
    },
    { title: 'OnboardingStatusChange' },
  ),
  'document.reviewed': Type.Object(
    {
      id: Type.String({ format: 'uuid' }),
      document_type: StringEnum(DOCUMENT_TYPES),
      status: StringEnum(DOCUMENT_STATUSES),
      rejection_reason: Nullable(Type.String()),
    },
    { title: 'DocumentReview' },
  ),
} as const satisfies Record<EventType, TSchema>;

const DESCRIPTIONS: Record<EventType, string> = {
  'virtual_account.created': 'A virtual account was issued (data: the account).',
  'virtual_account.credited':
    'Money arrived on a virtual account (data: the credit and the account after it).',
  'virtual_account.status_changed':
    'A virtual account was deactivated, reactivated or closed (data: the account, with status_reason).',
  'onboarding.status_changed':
    "The partner's onboarding_status changed: submitted, approved, changes requested, rejected, suspended or reinstated. Sent to both environments.",
  'document.reviewed': 'The operator approved or rejected a document. Sent to both environments.',
};

export function createEventSerializer(): EventSerializer {
  const serializers = new Map(
    Object.entries(EVENT_PAYLOADS).map(([type, schema]) => [type, compileSerializer(schema)]),
  );
  return (type, data) => {
    const serialize = serializers.get(type);
    if (!serialize) throw new Error(`no payload schema for ${type}`);
    return serialize(data);
  };
}

/** `virtual_account.created` → `VirtualAccountCreated`: the stem of the type's schema names. */
export const pascalName = (type: EventType): string =>
  type.replace(/(^|[._])(\w)/g, (_, _separator: string, letter: string) => letter.toUpperCase());

/** The delivered body of an event type: `{type, timestamp, data}` (CONTRACT 4.5). */
export const eventBodySchema = (type: EventType) =>
  Type.Object(
    {
      type: Type.Literal(type),
      timestamp: Timestamp('When the event happened (its creation), not when this attempt was sent.'),
      data: EVENT_PAYLOADS[type],
    },
    { title: `${pascalName(type)}Webhook`, description: DESCRIPTIONS[type] },
  );

/** The OpenAPI 3.1 `webhooks` section: one operation per event type, the payload as its request body. */
export function webhooksDocument(): Record<string, unknown> {
  return Object.fromEntries(
    (Object.keys(EVENT_PAYLOADS) as EventType[]).map((type) => [
      type,
      {
        post: {
          operationId: `${pascalName(type).replace(/^./, (letter) => letter.toLowerCase())}Webhook`,
          summary: DESCRIPTIONS[type],
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
}
