import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/errors.js';
import { errorResponses, Success, success } from './schemas.js';

const Health = Success(Type.Object({ status: Type.String({ examples: ['ok'] }) }), 'OK');

/** Probes at the root, outside the API prefix and the per-IP rate limit. */
export function registerHealthRoutes(app: FastifyInstance, ping: () => Promise<void>): void {
  const tags = ['Operations'];
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'getHealth',
        summary: 'The process is up',
        tags,
        response: { 200: Health, ...errorResponses(['INTERNAL_ERROR']) },
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
        tags,
        response: { 200: Health, ...errorResponses(['SERVICE_UNAVAILABLE']) },
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
