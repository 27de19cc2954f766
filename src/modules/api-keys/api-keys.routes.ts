import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestMeta, sessionOf } from '../../platform/http/auth.js';
import { operation } from '../../platform/http/route.js';
import { success } from '../../platform/http/schemas.js';
import { answerIdempotently, withoutSecret } from '../../platform/idempotency/idempotency.js';
import {
  API_KEY_REPLAY_MESSAGE,
  ApiKeyListQuery,
  ApiKeyListResponse,
  ApiKeyParams,
  ApiKeyResponse,
  CreateApiKeyBody,
  CreatedApiKeyResponse,
} from './api-keys.schemas.js';
import type { ApiKeysService } from './api-keys.service.js';

const tags = ['API keys'];

/** Key management takes session tokens only: an API key cannot mint or revoke keys. */
export const apiKeysRoutes: FastifyPluginAsyncTypebox<{ apiKeys: ApiKeysService }> = async (
  app,
  { apiKeys },
) => {
  app.post(
    '/services/partner/settings/api-keys',
    operation({
      operationId: 'createApiKey',
      summary: 'Create an API key (shown once)',
      description:
        'Live keys need onboarding_status active (403 ONBOARDING_NOT_APPROVED). The key is stored only as a hash. ' +
        'An idempotent replay answers the same key without its secret (`key: null`).',
      tags,
      auth: 'session',
      access: 'keys',
      body: CreateApiKeyBody,
      idempotent: true,
      replayBody: withoutSecret('key', API_KEY_REPLAY_MESSAGE),
      response: { 201: CreatedApiKeyResponse },
      errors: ['ONBOARDING_NOT_APPROVED'],
    }),
    async (request, reply) =>
      answerIdempotently(
        request,
        reply,
        201,
        () => apiKeys.create(sessionOf(request), request.body, requestMeta(request)),
        (data) => success('API key created. Store the key now: it is not shown again.', data),
      ),
  );

  app.get(
    '/services/partner/settings/api-keys',
    operation({
      operationId: 'listApiKeys',
      summary: 'List API keys (never the secrets)',
      description:
        'Keys of both environments, newest first, active and revoked: name, environment, last four characters, last use. The secret itself is never stored, so it cannot be shown again.',
      tags,
      auth: 'session',
      access: 'keys',
      querystring: ApiKeyListQuery,
      response: { 200: ApiKeyListResponse },
    }),
    async (request) =>
      success(
        'API keys.',
        await apiKeys.list(sessionOf(request).partnerId, {
          limit: request.query.limit,
          ...(request.query.cursor !== undefined ? { cursor: request.query.cursor } : {}),
        }),
      ),
  );

  app.delete(
    '/services/partner/settings/api-keys/:id',
    operation({
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key',
      description: 'Takes effect at once. Revoking a revoked key answers the same.',
      tags,
      auth: 'session',
      access: 'keys',
      params: ApiKeyParams,
      response: { 200: ApiKeyResponse },
    }),
    async (request) =>
      success(
        'API key revoked.',
        await apiKeys.revoke(sessionOf(request), request.params.id, requestMeta(request)),
      ),
  );
};
