import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Access, mayAccess, USER_ROLES } from '../auth/roles.js';
import type { ErrorCode } from '../errors/errors.js';
import { extend } from '../objects.js';
import { errorResponses } from './schemas.js';

/**
 * Who may call an operation:
 * - none: public;
 * - session: a dashboard session token (an API key gets 403 FORBIDDEN);
 * - partner: a session token or an API key (`/services/*`);
 * - admin: the back office: ADMIN_API_KEY, or an operator's console session cookie (with the
 *   anti-forgery proof on state changes);
 * - operator: a console session cookie only (the session itself).
 */
export type AuthMode = 'none' | 'session' | 'partner' | 'admin' | 'operator' | 'connector';
export type BodyKind = 'json' | 'multipart';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode;
    /** What a dashboard session's role must hold (auth session and partner; roles.ts). */
    access?: Access;
    consumes?: BodyKind;
    /** Idempotency-Key honoured (POST under /services/). */
    idempotent?: boolean;
    /** The session resolver reads the route's data with the session (CredentialResolvers.sessionWithData). */
    preload?: boolean;
    /** The route's write checks an API key itself (`partnerIdOf`): a recently verified key is not looked up. */
    keyCheckedByWrite?: boolean;
    /** A live session of a suspended partner may use it (switching back to sandbox, logging out). */
    suspendedLiveSession?: boolean;
    /** A session made without a second factor may use it when the business requires one for everyone. */
    withoutSecondFactor?: boolean;
    /** What a replay answers instead of the first body (e.g. without a secret shown once). */
    replayBody?: (body: Record<string, unknown>) => Record<string, unknown>;
    rateLimit?: boolean;
    /** Headers that replace the platform's security headers on this route's successful answers. */
    successHeaders?: SuccessHeaders;
    /** Checks the raw JSON body before it is parsed (a signature over its bytes); throws to refuse. */
    verifyBody?: (request: FastifyRequest, body: Buffer) => void;
  }
}

export type SuccessHeaders = (
  request: FastifyRequest,
  reply: FastifyReply,
) => Record<string, string> | undefined;

const SECURITY: Record<AuthMode, Array<Record<string, string[]>> | undefined> = {
  none: undefined,
  session: [{ sessionToken: [] }],
  partner: [{ sessionToken: [] }, { apiKey: [] }],
  admin: [{ adminKey: [] }, { consoleSession: [] }],
  operator: [{ consoleSession: [] }],
  connector: [{ connectorSignature: [] }],
};

const AUTH_ERRORS: Record<AuthMode, ErrorCode[]> = {
  none: [],
  session: ['UNAUTHENTICATED', 'TOKEN_EXPIRED', 'FORBIDDEN', 'PARTNER_SUSPENDED', 'SECOND_FACTOR_REQUIRED'],
  partner: [
    'UNAUTHENTICATED',
    'TOKEN_EXPIRED',
    'FORBIDDEN',
    'ONBOARDING_NOT_APPROVED',
    'PARTNER_SUSPENDED',
    'SECOND_FACTOR_REQUIRED',
  ],
  admin: ['UNAUTHENTICATED', 'TOKEN_EXPIRED', 'CSRF_REJECTED', 'FORBIDDEN'],
  operator: ['UNAUTHENTICATED', 'TOKEN_EXPIRED', 'CSRF_REJECTED'],
  connector: ['SIGNATURE_INVALID', 'FORBIDDEN'],
};

/**
 * Who may call it: an operation a dashboard session can call declares the access its user's role
 * must hold (platform/auth/roles.ts); no other operation has one.
 */
type AuthSpec =
  | { auth: 'session' | 'partner'; access: Access }
  | { auth: Exclude<AuthMode, 'session' | 'partner'>; access?: never };

type OperationSpec<B, Q, P, H> = AuthSpec & {
  operationId: string;
  summary: string;
  /** What a partner needs to know beyond the summary: rules, side effects, errors. */
  description: string;
  tags: string[];
  body?: B;
  consumes?: BodyKind;
  querystring?: Q;
  params?: P;
  headers?: H;
  /** Success status → full envelope schema. */
  response: Record<number, TSchema>;
  /** Error codes specific to this operation; the common ones are added from the spec's shape. */
  errors?: ErrorCode[];
  errorData?: Partial<Record<ErrorCode, TSchema>>;
  idempotent?: boolean;
  /** Read the route's data together with the session, in one lookup (session routes only). */
  preload?: boolean;
  /**
   * The handler writes through `withCheckedCredential` and stores `partnerIdOf(credential)`: an API key
   * verified in the last minute is then checked by the write itself instead of a lookup before it.
   */
  keyCheckedByWrite?: boolean;
  /**
   * A live session of a suspended partner may call it; every other live use is refused
   * (docs/decisions.md, "Suspension").
   */
  suspendedLiveSession?: boolean;
  /**
   * A session made without a second factor may call it even when the business requires one for
   * everyone (the session, logout, your own user, enrolling your factor): docs/decisions.md,
   * "Dashboard second factor".
   */
  withoutSecondFactor?: boolean;
  /** The body an idempotent replay answers, made from the first one; stored instead of it. */
  replayBody?: (body: Record<string, unknown>) => Record<string, unknown>;
  rateLimit?: boolean;
  /** Headers that replace the platform's security headers on this route's successful answers. */
  successHeaders?: SuccessHeaders;
};

const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description:
        'Makes retries safe: the first response to a key is replayed (header Idempotent-Replayed: true) for 24 hours. ' +
        'Scoped to your partner account and environment. Reusing a key with a different body is 422 IDEMPOTENCY_KEY_REUSED; ' +
        'while the first request runs, 409 IDEMPOTENCY_IN_PROGRESS.',
      examples: ['7c0d9a3e-5b1f-4d55-9a53-2f4f1b1d7e10'],
    }),
  ),
});

/** The roles that may call an operation, for its description (platform/auth/roles.ts). */
function accessNote(access: Access): string {
  const always = USER_ROLES.filter((role) => mayAccess(role, access, 'live'));
  const sandbox = USER_ROLES.filter((role) => !always.includes(role) && mayAccess(role, access, 'sandbox'));
  return (
    `Dashboard roles (access \`${access}\`): ${always.join(', ')}` +
    (sandbox.length > 0 ? `; ${sandbox.join(', ')} in the sandbox only` : '') +
    '. Other roles get 403 FORBIDDEN; API keys are not limited by roles.'
  );
}

const SUCCESS_DESCRIPTIONS: Record<number, string> = { 200: 'OK', 201: 'Created' };

/** @fastify/swagger takes a response's description from its schema. */
function described(responses: Record<number, TSchema>): Record<number, TSchema> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, schema]) => [
      status,
      extend(schema, {
        description: schema.description ?? SUCCESS_DESCRIPTIONS[Number(status)] ?? 'Success',
      }) as TSchema,
    ]),
  );
}

/** Fastify warns about a schema key that is present but undefined. */
function present(parts: Record<string, TSchema | undefined>): Record<string, TSchema> {
  return Object.fromEntries(Object.entries(parts).filter(([, schema]) => schema !== undefined)) as Record<
    string,
    TSchema
  >;
}

/**
 * One operation's schema and config: request schemas, success and error responses grouped by status
 * (used for serialization, which drops any field a schema does not list, and for the OpenAPI document),
 * security requirement and the route config read by the platform hooks.
 */
export function operation<
  B extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  P extends TSchema | undefined = undefined,
  H extends TSchema | undefined = undefined,
>(spec: OperationSpec<B, Q, P, H>) {
  const codes: ErrorCode[] = [...(spec.errors ?? []), ...AUTH_ERRORS[spec.auth]];
  if (spec.body)
    codes.push('MALFORMED_REQUEST', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'VALIDATION_FAILED');
  if (spec.querystring) codes.push('VALIDATION_FAILED');
  if (spec.params) codes.push('NOT_FOUND');
  if (spec.idempotent) codes.push('IDEMPOTENCY_IN_PROGRESS', 'IDEMPOTENCY_KEY_REUSED', 'VALIDATION_FAILED');
  if (spec.rateLimit !== false) codes.push('RATE_LIMITED');
  codes.push('INTERNAL_ERROR');
  const consumes = spec.body ? (spec.consumes ?? 'json') : undefined;
  const headers = spec.idempotent ? IdempotencyHeaders : spec.headers;
  return {
    schema: {
      operationId: spec.operationId,
      summary: spec.summary,
      description: spec.access ? `${spec.description} ${accessNote(spec.access)}` : spec.description,
      tags: spec.tags,
      ...(SECURITY[spec.auth] ? { security: SECURITY[spec.auth] } : {}),
      ...(consumes ? { consumes: [consumes === 'json' ? 'application/json' : 'multipart/form-data'] } : {}),
      ...(present({
        body: spec.body,
        querystring: spec.querystring,
        params: spec.params,
        headers,
      }) as {
        body: B;
        querystring: Q;
        params: P;
        headers: H;
      }),
      response: Object.assign(described(spec.response), errorResponses(codes, spec.errorData)),
    },
    config: {
      auth: spec.auth,
      ...(spec.access ? { access: spec.access } : {}),
      ...(consumes ? { consumes } : {}),
      ...(spec.idempotent ? { idempotent: true } : {}),
      ...(spec.replayBody ? { replayBody: spec.replayBody } : {}),
      ...(spec.suspendedLiveSession ? { suspendedLiveSession: true } : {}),
      ...(spec.withoutSecondFactor ? { withoutSecondFactor: true } : {}),
      ...(spec.preload ? { preload: true } : {}),
      ...(spec.keyCheckedByWrite ? { keyCheckedByWrite: true } : {}),
      ...(spec.rateLimit === false ? { rateLimit: false } : {}),
      ...(spec.successHeaders ? { successHeaders: spec.successHeaders } : {}),
    },
  };
}
