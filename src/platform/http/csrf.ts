import type { FastifyRequest } from 'fastify';
import { keyedHash, safeEqual } from '../crypto/secret-box.js';
import { AppError } from '../errors/errors.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

declare module 'fastify' {
  interface FastifyRequest {
    /** PUBLIC_URL's origin where it is set (registerAuth): the only Origin this site's pages send. */
    publicOrigin: string | undefined;
  }
}

/** A browser session's anti-forgery token: derived from its session token, so nothing more is stored. */
export const antiForgeryToken = (key: Buffer, sessionToken: string): string =>
  keyedHash(key, `csrf:${sessionToken}`);

export const isStateChanging = (request: FastifyRequest): boolean => !SAFE_METHODS.has(request.method);

/**
 * This server's own origin as the browser names it: PUBLIC_URL's where it is set, since the Host header
 * is the client's to write; otherwise the request's scheme and Host (behind a trusted proxy too).
 */
export const ownOrigin = (request: FastifyRequest): string =>
  request.publicOrigin ?? `${request.protocol}://${request.host}`;

/** The request's Origin is this server's: a page of another site cannot make it. */
export function assertSameOrigin(request: FastifyRequest): void {
  if (request.headers.origin !== ownOrigin(request)) {
    throw new AppError('CSRF_REJECTED', { message: 'This request did not come from this site (Origin).' });
  }
}

/**
 * A cookie-authenticated request that changes state carries the session's anti-forgery token in
 * X-CSRF-Token (a header only the page's own script can set) and this site's Origin
 * (docs/partner-guide.md, "Authentication"; docs/operator-guide.md, "Who may call it").
 */
export function assertAntiForgery(request: FastifyRequest, expected: string): void {
  assertSameOrigin(request);
  const given = request.headers['x-csrf-token'];
  if (typeof given !== 'string' || !safeEqual(given, expected)) {
    throw new AppError('CSRF_REJECTED', {
      message: 'The X-CSRF-Token header is missing or does not belong to this session.',
    });
  }
}
