import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/errors.js';
import { extend } from '../objects.js';
import { ErrorEnvelope, errorResponses, Success, success } from './schemas.js';

const Health = Success(Type.Object({ status: Type.String({ examples: ['ok'] }) }), 'OK');
/** What the server answers before routing to any operation: a request it cannot parse or take. */
const MalformedHttp = extend(ErrorEnvelope(['MALFORMED_REQUEST', 'PAYLOAD_TOO_LARGE']), {
  description: 'A malformed HTTP request (400) or an oversized URL or header section (413).',
});

/** Probes at the root, outside the API prefix and the per-IP rate limit. */
export function registerHealthRoutes(app: FastifyInstance, ping: () => Promise<void>): void {
  const tags = ['Operations'];
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'getHealth',
        summary: 'The process is up',
        description:
          'Liveness: 200 while the process serves HTTP. Outside the API prefix and the rate limit.',
        tags,
        response: { 200: Health, '4xx': MalformedHttp, ...errorResponses(['INTERNAL_ERROR']) },
      },
      config: { rateLimit: false },
    },
    async () => success('OK', { status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'getReadiness',
        summary: 'The database answers',
        description:
          'Readiness: 200 once the database answers a query, else 503 SERVICE_UNAVAILABLE (take the instance out of rotation).',
        tags,
        response: { 200: Health, '4xx': MalformedHttp, ...errorResponses(['SERVICE_UNAVAILABLE']) },
      },
      config: { rateLimit: false },
    },
    async (request) => {
      try {
        await ping();
      } catch (error) {
        request.log.error({ err: error }, 'readiness check failed: database unreachable');
        throw new AppError('SERVICE_UNAVAILABLE', { message: 'The database is unreachable.' });
      }
      return success('OK', { status: 'ready' });
    },
  );
}
