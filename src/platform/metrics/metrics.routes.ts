import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { AppError } from '../errors/errors.js';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/**
 * GET /metrics in Prometheus' text format, for a scraper holding METRICS_TOKEN (docs/operations.md,
 * "Metrics"). Registered only when the token is set: without it the path is unknown (404). Not in
 * the OpenAPI documents: its body is Prometheus text, read by a scraper, not a client of the API.
 */
export function registerMetricsRoute(
  app: FastifyInstance,
  options: { token: string; registry: Registry },
): void {
  // Digests of equal length, so that the comparison takes the same time whatever was sent.
  const expected = digest(`Bearer ${options.token}`);
  app.get('/metrics', { schema: { hide: true }, config: { rateLimit: false } }, async (request, reply) => {
    const given = request.headers.authorization;
    if (given === undefined || !timingSafeEqual(digest(given), expected)) {
      throw new AppError('UNAUTHENTICATED', {
        message: 'Send Authorization: Bearer <METRICS_TOKEN>.',
        headers: { 'www-authenticate': 'Bearer realm="metrics"' },
      });
    }
    const text = await options.registry.metrics();
    reply.header('content-type', options.registry.contentType);
    return text;
  });
}
