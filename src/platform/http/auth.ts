import { createHash, timingSafeEqual } from 'node:crypto';
import type {} from '@fastify/cookie';
import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify';
import type { RequestMeta } from '../audit/audit.repository.js';
import type {
  ApiKeyCredential,
  OperatorCredential,
  PartnerCredential,
  SessionCredential,
} from '../auth/credentials.js';
import { isKeyCheckFailure } from '../auth/key-check.js';
import { mayAccess, needsSecondFactor, refusal } from '../auth/roles.js';
import { API_KEY_FORMAT } from '../crypto/tokens.js';
import { AppError } from '../errors/errors.js';
import { assertAntiForgery, assertSameOrigin, isStateChanging } from './csrf.js';
import { addRouteHook } from './route-hooks.js';

export interface CredentialResolvers {
  session(token: string): Promise<SessionCredential>;
  /** With `cached`, a key verified in the last minute is taken without a lookup (ApiKeyCredential.cached). */
  apiKey(key: string, options?: { cached: boolean }): Promise<ApiKeyCredential>;
  /**
   * For routes with config.preload: the session and the data the route reads, in one lookup
   * (one round trip on PostgreSQL for the hottest read).
   */
  sessionWithData(token: string): Promise<{ credential: SessionCredential; data: unknown }>;
  /** The operator behind a console session cookie. */
  operatorSession(token: string): Promise<OperatorCredential & { kind: 'operator' }>;
}

declare module 'fastify' {
  interface FastifyRequest {
    credential: PartnerCredential | null;
    /** The session token a session credential came with (header or cookie). */
    sessionToken: string | undefined;
    /** Who acts in the back office (routes with auth 'admin' or 'operator'). */
    operator: OperatorCredential | null;
    /** What the route's preload read with the session (see CredentialResolvers.sessionWithData). */
    preloaded: unknown;
    /** For a credential taken from the cache: looks the key up (the lookup's error when it may not act). */
    recheckCredential: (() => Promise<PartnerCredential>) | undefined;
  }
}

const digest = (value: string) => createHash('sha256').update(value).digest();

const BEARER = /^Bearer[ ]+([\x21-\x7e]{1,512})\s*$/i;

function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? BEARER.exec(header) : null;
  if (!match?.[1]) throw new AppError('UNAUTHENTICATED');
  return match[1];
}

interface AuthOptions {
  resolvers: CredentialResolvers;
  adminApiKey: string | undefined;
  operatorCookie: string;
  /** The dashboard's session cookie: a partner session token, like a bearer one. */
  partnerCookie: string;
  /** The anti-forgery token of a session token (csrf.ts antiForgeryToken). */
  antiForgery: (sessionToken: string) => string;
  /** PUBLIC_URL where it is set: a same-origin check compares Origin with its origin. */
  publicUrl: string | undefined;
}

/**
 * Authenticates before the body is read, so an anonymous client cannot make the server parse an
 * upload. The route's config.auth decides which credentials it takes (see AuthMode): the console's
 * cookie (operator; admin without an Authorization header), ADMIN_API_KEY (admin), an API key or a
 * session token, as a bearer token or the dashboard's cookie (session, partner).
 */
export function registerAuth(app: FastifyInstance, options: AuthOptions): void {
  app.decorateRequest('publicOrigin', options.publicUrl ? new URL(options.publicUrl).origin : undefined);
  app.decorateRequest('credential', null);
  app.decorateRequest('preloaded', undefined);
  app.decorateRequest('operator', null);
  app.decorateRequest('sessionToken', undefined);
  app.decorateRequest('recheckCredential', undefined);
  const credentials = credentialReaders(options);

  addRouteHook(
    app,
    'onRequest',
    // The bank connector's signature is checked by its own module (bank/connector-guard.ts).
    (config) => config.auth !== undefined && config.auth !== 'none' && config.auth !== 'connector',
    (config) => async (request) => {
      const mode = config.auth;
      if (mode === 'operator' || (mode === 'admin' && request.headers.authorization === undefined)) {
        request.operator = await credentials.operatorFromCookie(request);
        return;
      }
      // The dashboard's cookie stands for a session token when no Authorization header came.
      const cookie =
        request.headers.authorization === undefined ? request.cookies[options.partnerCookie] : undefined;
      const token = cookie ?? bearerToken(request);
      if (cookie !== undefined && (mode === 'admin' || API_KEY_FORMAT.test(token))) {
        throw new AppError('UNAUTHENTICATED');
      }
      if (mode === 'admin') request.operator = credentials.adminKey(token);
      else if (API_KEY_FORMAT.test(token))
        request.credential = await credentials.apiKey(request, config, token);
      else request.credential = await credentials.session(request, config, token, cookie !== undefined);
    },
  );
}

/** How each kind of credential is read and checked, for registerAuth's hook. */
function credentialReaders(options: AuthOptions) {
  const adminDigest = options.adminApiKey ? digest(options.adminApiKey) : undefined;

  /**
   * For both apps' cookies: a state-changing request made with one must also carry the session's
   * anti-forgery token and come from this origin, so another site cannot ride on the cookie
   * (docs/partner-guide.md, "Authentication"; docs/operator-guide.md, "Who may call it").
   */
  const assertCookieProof = (request: FastifyRequest, sessionToken: string) => {
    if (isStateChanging(request)) assertAntiForgery(request, options.antiForgery(sessionToken));
  };

  return {
    async operatorFromCookie(request: FastifyRequest): Promise<OperatorCredential> {
      const token = request.cookies[options.operatorCookie];
      if (!token) throw new AppError('UNAUTHENTICATED');
      const operator = await options.resolvers.operatorSession(token);
      assertCookieProof(request, token);
      return operator;
    },

    adminKey(token: string): OperatorCredential {
      // Both sides hashed to one length, so the comparison time says nothing about the key.
      if (!adminDigest || !timingSafeEqual(digest(token), adminDigest)) throw new AppError('UNAUTHENTICATED');
      return { kind: 'admin_api_key' };
    },

    async apiKey(request: FastifyRequest, config: FastifyContextConfig, token: string) {
      // Not with an Idempotency-Key: a replay is answered before any write could check the key.
      const cached = config.keyCheckedByWrite === true && request.headers['idempotency-key'] === undefined;
      const credential = await options.resolvers.apiKey(token, { cached });
      if (credential.cached) request.recheckCredential = () => options.resolvers.apiKey(token);
      if (config.auth === 'session') {
        throw new AppError('FORBIDDEN', {
          message: 'API keys work on /services/ endpoints only; log in for this one.',
        });
      }
      return credential;
    },

    async session(request: FastifyRequest, config: FastifyContextConfig, token: string, fromCookie: boolean) {
      let session: SessionCredential;
      if (config.preload) {
        const found = await options.resolvers.sessionWithData(token);
        session = found.credential;
        request.preloaded = found.data;
      } else {
        session = await options.resolvers.session(token);
      }
      if (fromCookie) assertCookieProof(request, token);
      request.sessionToken = token;
      // A suspended partner keeps the sandbox; a live session may only leave live or log out
      // (docs/decisions.md, "Suspension").
      if (session.environment === 'live' && session.partnerSuspended && !config.suspendedLiveSession) {
        throw new AppError('PARTNER_SUSPENDED');
      }
      // Every session route declares its access (route.ts); one without would be refused, not opened.
      const access = config.access ?? 'owner';
      if (!mayAccess(session.role, access, session.environment)) {
        throw new AppError('FORBIDDEN', { message: refusal(session.role, access, session.environment) });
      }
      // A session made without a second factor, where the business's policy needs one
      // (docs/decisions.md, "Dashboard second factor"); API keys are not people and never get here.
      if (
        !session.secondFactor &&
        needsSecondFactor(
          session.secondFactorPolicy,
          access,
          session.environment,
          config.withoutSecondFactor === true,
        )
      ) {
        throw new AppError('SECOND_FACTOR_REQUIRED');
      }
      return session;
    },
  };
}

/**
 * The RFC 6750 (section 3) challenge for a 401 on a bearer-protected route: the scheme alone when no
 * bearer credential came, error="invalid_request" for a malformed one, error="invalid_token" for one
 * that was well formed but not accepted (unknown, revoked or expired). Undefined on other routes (a
 * failed login is not a request for a bearer token).
 */
export function bearerChallenge(request: FastifyRequest): string | undefined {
  const mode = request.routeOptions.config?.auth;
  if (mode === undefined || mode === 'none' || mode === 'operator') return undefined;
  const header = request.headers.authorization;
  if (header === undefined || !/^Bearer(?: |$)/i.test(header)) return 'Bearer realm="baas"';
  return `Bearer realm="baas", error="${BEARER.test(header) ? 'invalid_token' : 'invalid_request'}"`;
}

/** Who acts in the back office; only called on routes whose auth mode guarantees one. */
export function operatorOf(request: FastifyRequest): OperatorCredential {
  if (!request.operator) throw new AppError('UNAUTHENTICATED');
  return request.operator;
}

/** A public operation that sets a browser session cookie (sign-in, set-up): refused from another origin. */
export const assertOwnOriginIfSent = (request: FastifyRequest): void => {
  if (request.headers.origin !== undefined) assertSameOrigin(request);
};

/** The authenticated partner; only called on routes whose auth mode guarantees one. */
export function credentialOf(request: FastifyRequest): PartnerCredential {
  if (!request.credential) throw new AppError('UNAUTHENTICATED');
  return request.credential;
}

/**
 * Runs the route's write with the request's credential (routes with keyCheckedByWrite). When the
 * write refused a key taken from the cache (`partnerIdOf`), the key is looked up: its error is the
 * answer (revoked: 401; partner suspended: 403), or, when it may act after all, the write runs again
 * with the fresh credential.
 */
export async function withCheckedCredential<T>(
  request: FastifyRequest,
  write: (credential: PartnerCredential) => Promise<T>,
): Promise<T> {
  try {
    return await write(credentialOf(request));
  } catch (error) {
    const recheck = request.recheckCredential;
    if (!recheck || !isKeyCheckFailure(error)) throw error;
    request.recheckCredential = undefined;
    request.credential = await recheck();
    return write(request.credential);
  }
}

export function sessionOf(request: FastifyRequest): SessionCredential {
  const credential = credentialOf(request);
  if (credential.kind !== 'session') throw new AppError('FORBIDDEN');
  return credential;
}

export const requestMeta = (request: FastifyRequest): RequestMeta => ({
  requestId: request.id,
  ip: request.ip,
});
