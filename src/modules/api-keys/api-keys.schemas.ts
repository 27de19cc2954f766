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

export const CreateApiKeyBody = Type.Object(
  {
    name: Type.String({
      maxLength: 100,
      description: 'A label for the key, e.g. the system using it.',
      examples: ['payments-backend'],
    }),
    environment: Environment,
  },
  { examples: [{ name: 'payments-backend', environment: 'sandbox' }] },
);
export type CreateApiKeyBody = Static<typeof CreateApiKeyBody>;

const ApiKeyView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    environment: Environment,
    last4: Type.String({ description: 'The last four characters of the key.', examples: ['x9Qa'] }),
    status: StringEnum(['active', 'revoked']),
    created_at: Timestamp(),
    last_used_at: Nullable(Timestamp('Last use, to the minute.')),
    revoked_at: Nullable(Timestamp()),
    created_by: Nullable(
      Type.Object(
        { id: Type.String({ format: 'uuid' }), name: Type.String() },
        {
          description:
            "The dashboard user who created the key (also after they were removed: a removed user's keys keep working until revoked); null for keys made before dashboard users.",
        },
      ),
    ),
  },
  { title: 'ApiKey' },
);

export const CreatedApiKeyResponse = Success(
  Type.Object(
    {
      id: Type.String({ format: 'uuid' }),
      name: Type.String(),
      environment: Environment,
      key: Nullable(
        Type.String({
          description:
            'The secret key, shown this once: store it now. sk_sandbox_… or sk_live_… + 256 random bits. ' +
            'null in an idempotent replay (Idempotent-Replayed: true): the secret is never stored, so a ' +
            'replay cannot show it again; if the first response was lost, revoke the key (by id) and create another.',
          examples: ['sk_sandbox_3q2+7w…'],
        }),
      ),
      last4: Type.String(),
      created_at: Timestamp(),
    },
    { title: 'CreatedApiKey' },
  ),
  'API key created. Store the key now: it is not shown again.',
);

export const API_KEY_REPLAY_MESSAGE =
  'API key created earlier with this Idempotency-Key. Its secret was shown only in the first response and is not stored: if it was lost, revoke this key and create another.';

export const ApiKeyListQuery = PaginationQuery;
export type ApiKeyListQuery = Static<typeof ApiKeyListQuery>;
export const ApiKeyListResponse = Success(Page(ApiKeyView), 'API keys.');
export const ApiKeyResponse = Success(ApiKeyView, 'API key revoked.');
export const ApiKeyParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
export type ApiKeyParams = Static<typeof ApiKeyParams>;
