/**
 * The one table of error codes: each code has exactly one HTTP status and a default message (the
 * error table of docs/partner-guide.md, "Responses and errors", is printed from it). Services throw
 * AppError with a code; the error handler renders the envelope.
 */
export const ERROR_REGISTRY = {
  MALFORMED_REQUEST: { status: 400, message: 'The request could not be parsed.' },
  UNAUTHENTICATED: { status: 401, message: 'Authentication required: send a valid bearer credential.' },
  TOKEN_EXPIRED: { status: 401, message: 'The session token has expired; log in again.' },
  INVALID_CREDENTIALS: { status: 401, message: 'The e-mail address or password is incorrect.' },
  ACCOUNT_NOT_VERIFIED: {
    status: 403,
    message: 'The account is not verified yet: enter the code sent to your e-mail address.',
  },
  ONBOARDING_NOT_APPROVED: {
    status: 403,
    message: 'Live access needs an approved onboarding application (onboarding_status "active").',
  },
  FORBIDDEN: { status: 403, message: 'This credential cannot be used on this endpoint.' },
  PARTNER_SUSPENDED: {
    status: 403,
    message: 'The operator has suspended this partner: live access is refused; the sandbox keeps working.',
  },
  /** A dashboard session made without a second factor, where the business's policy needs one (docs/decisions.md, "Dashboard second factor"). */
  SECOND_FACTOR_REQUIRED: {
    status: 403,
    message:
      'This needs a session made with a second factor: enrol one in Settings → Users → your second factor, then log in again.',
  },
  CSRF_REJECTED: {
    status: 403,
    message:
      'This request came with the session cookie but without the anti-forgery proof (X-CSRF-Token header and a same-origin Origin).',
  },
  SIGNATURE_INVALID: {
    status: 401,
    message:
      'The bank connector signature is missing or wrong, or its webhook-timestamp is more than 5 minutes off.',
  },
  SANDBOX_ONLY: { status: 403, message: 'This operation is available in the sandbox environment only.' },
  NOT_FOUND: { status: 404, message: 'The requested resource was not found.' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'This method is not allowed on this path.' },
  ACCOUNT_ALREADY_VERIFIED: { status: 409, message: 'The account is already verified.' },
  REPRESENTATIVE_REQUIRED: {
    status: 409,
    message: 'Add a compliance representative before adding team members.',
  },
  BVN_IMMUTABLE: { status: 409, message: 'The BVN is already set and verified; it cannot be changed.' },
  ONBOARDING_INCOMPLETE: { status: 409, message: 'Onboarding requirements are still outstanding.' },
  ONBOARDING_LOCKED: { status: 409, message: 'The onboarding status does not allow this change.' },
  VIRTUAL_ACCOUNT_EXISTS: {
    status: 409,
    message: 'A virtual account already exists for this customer e-mail in this environment.',
  },
  ACCOUNT_INACTIVE: {
    status: 409,
    message: 'The virtual account is inactive: it takes no credits or changes until it is reactivated.',
  },
  ACCOUNT_CLOSED: { status: 409, message: 'The virtual account is closed: it can no longer change.' },
  INSUFFICIENT_FUNDS: {
    status: 409,
    message: "The transfer's amount plus its fee is more than the source account's available balance.",
  },
  DUPLICATE_REFERENCE: {
    status: 409,
    message: 'A transfer with this reference already exists in this environment; `data` holds it.',
  },
  /** The connector's word on a transfer that the transfer's state does not allow (a failed one succeeding). */
  TRANSFER_STATE_CONFLICT: {
    status: 409,
    message: "The update contradicts the transfer's final state; nothing changed and the operator is told.",
  },
  /** A redelivery while no endpoint is set (docs/decisions.md, "`WEBHOOK_ENDPOINT_REQUIRED` (409)"). */
  WEBHOOK_ENDPOINT_REQUIRED: {
    status: 409,
    message:
      'No webhook endpoint is set for this environment: set one with PUT /services/partner/settings/webhook.',
  },
  /** A claim on a partner another operator works on (docs/operator-guide.md, "Assignment"). */
  ALREADY_ASSIGNED: {
    status: 409,
    message: 'Another operator is working on this partner; an admin can reassign it.',
  },
  /** Four eyes: a second proposal of the same decision for a partner (docs/operator-guide.md, "Four eyes"). */
  PROPOSAL_PENDING: {
    status: 409,
    message: 'This decision is already proposed for this partner and awaits another admin.',
  },
  /** Four eyes: a confirmation, decline or withdrawal of a proposal that is no longer pending. */
  PROPOSAL_SETTLED: {
    status: 409,
    message:
      'This proposal is no longer pending: it was already confirmed, declined, withdrawn or made void.',
  },
  /** Dashboard users: the change would leave the business without an owner (docs/decisions.md, "Dashboard users and roles"). */
  LAST_OWNER: {
    status: 409,
    message: 'A business always has at least one owner: make another user owner first.',
  },
  /** Dashboard users: an invitation to an address that is already a user of a business. */
  USER_EXISTS: {
    status: 409,
    message: 'This e-mail address already belongs to a dashboard user.',
  },
  /** Dashboard users: a resend of an invitation that was accepted or revoked. */
  INVITATION_NOT_PENDING: {
    status: 409,
    message: 'This invitation is no longer pending: it was accepted or revoked.',
  },
  /** A dashboard user turning their second factor off while the business requires one for everyone. */
  SECOND_FACTOR_ENFORCED: {
    status: 409,
    message: 'Your business requires a second factor for everyone: it cannot be turned off.',
  },
  /** A dashboard user starting an enrolment while a second factor is already on. */
  SECOND_FACTOR_ENROLLED: {
    status: 409,
    message: 'You already have a second factor: turn it off first to enrol a new one.',
  },
  IDEMPOTENCY_IN_PROGRESS: {
    status: 409,
    message: 'A request with this Idempotency-Key is still being processed; retry shortly.',
  },
  /** An operator's set-up confirmed before its first step gave the authenticator's secret. */
  SETUP_NOT_STARTED: {
    status: 409,
    message: 'Start the set-up first: it gives the secret for your authenticator app.',
  },
  /** An operator invitation link past its 72 hours (docs/decisions.md, "Operator roles"). */
  INVITATION_EXPIRED: {
    status: 410,
    message: 'This invitation link has expired: ask an admin for a new one.',
  },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'This Content-Type is not accepted by this endpoint.' },
  VALIDATION_FAILED: { status: 422, message: 'Some fields are invalid.' },
  OTP_INVALID: { status: 422, message: 'The verification code is incorrect.' },
  OTP_EXPIRED: { status: 422, message: 'The verification code has expired; request a new one.' },
  /** An operator's sign-in whose second step came too late, or after the sign-in was used or ended. */
  SIGN_IN_EXPIRED: {
    status: 422,
    message: 'The sign-in expired or was already used: enter your password again.',
  },
  BENEFICIARY_NOT_FOUND: {
    status: 422,
    message: 'The beneficiary bank does not know this account number.',
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    message: 'This Idempotency-Key was already used with a different request.',
  },
  RATE_LIMITED: { status: 429, message: 'Too many requests; retry later.' },
  OTP_ATTEMPTS_EXCEEDED: {
    status: 429,
    message: 'Too many wrong codes: this code no longer works. Request a new one.',
  },
  INTERNAL_ERROR: { status: 500, message: 'An unexpected error occurred.' },
  /**
   * /readyz when the database is unreachable, and any request the database could not serve in time
   * (unreachable, no free connection, a statement past its timeout): docs/decisions.md,
   * "`SERVICE_UNAVAILABLE` (503)".
   */
  SERVICE_UNAVAILABLE: { status: 503, message: 'The service is not ready.' },
  /** The beneficiary bank or the bank connector did not answer: nothing was debited. */
  BANK_UNAVAILABLE: {
    status: 503,
    message: 'The beneficiary bank cannot be reached right now; nothing was debited. Retry later.',
  },
  /**
   * A write the disk had no room for (docs/decisions.md, "A full disk").
   * Nothing of the request was kept, and the same request succeeds once space is freed.
   */
  STORAGE_FULL: {
    status: 503,
    message: 'The server cannot store data right now: its disk is full. Nothing was saved; try again later.',
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_REGISTRY;

export type FieldErrors = Record<string, string[]>;

export interface AppErrorOptions {
  message?: string;
  errors?: FieldErrors;
  data?: unknown;
  headers?: Record<string, string>;
}

export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors: FieldErrors | undefined;
  readonly data: unknown;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, options: AppErrorOptions = {}) {
    super(options.message ?? ERROR_REGISTRY[code].message);
    this.code = code;
    this.status = ERROR_REGISTRY[code].status;
    this.errors = options.errors;
    this.data = options.data;
    this.headers = options.headers;
  }
}

/** Adds a message to a field, once. */
export function addFieldError(errors: FieldErrors, field: string, message: string): void {
  const list = errors[field] ?? [];
  if (!list.includes(message)) list.push(message);
  errors[field] = list;
}

export const validationError = (errors: FieldErrors, message?: string): AppError =>
  new AppError('VALIDATION_FAILED', { errors, ...(message ? { message } : {}) });

/** 429 RATE_LIMITED with Retry-After in whole seconds (at least 1). */
export const rateLimited = (retryAfterMs: number): AppError =>
  new AppError('RATE_LIMITED', {
    headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
  });

/** How long a client is asked to wait before retrying when the bank could not be reached. */
const BANK_UNAVAILABLE_RETRY_AFTER_SECONDS = 30;

/** 503 BANK_UNAVAILABLE with Retry-After; `reason` says what the bank (or its absence) said. */
export const bankUnavailable = (reason?: string): AppError =>
  new AppError('BANK_UNAVAILABLE', {
    headers: { 'retry-after': String(BANK_UNAVAILABLE_RETRY_AFTER_SECONDS) },
    ...(reason ? { message: `${ERROR_REGISTRY.BANK_UNAVAILABLE.message} (${reason})` } : {}),
  });

/** How long a client is asked to wait before retrying a write the full disk refused. */
const STORAGE_FULL_RETRY_AFTER_SECONDS = 60;

/**
 * A write that found the disk full: the file system's ENOSPC or EDQUOT (quota), SQLite's SQLITE_FULL,
 * PostgreSQL's disk_full (53100).
 */
export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL' || code === '53100';
}

/** 503 STORAGE_FULL with Retry-After. */
export const storageFull = (): AppError =>
  new AppError('STORAGE_FULL', { headers: { 'retry-after': String(STORAGE_FULL_RETRY_AFTER_SECONDS) } });

/** How long a client is asked to wait before retrying a request the database could not serve. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

/** PostgreSQL's SQLSTATEs for "no database now": the connection classes and an overloaded server. */
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, recovering)
  '53300', // too_many_connections
]);
const UNREACHABLE_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
]);
/**
 * node-postgres' own words for a connection it lost, a pooled one it could not get in time, or a new
 * one (a read run again on a fresh connection, named-statements.ts) that did not connect in time.
 */
const LOST_CONNECTION =
  /^(Connection terminated|timeout exceeded when trying to connect|timeout expired$|Client has encountered a connection error)/;

/**
 * What a request's failure says about the database: `unreachable` (down, restarting, the
 * connection lost, no pooled connection free in DATABASE_POOL_TIMEOUT_MS), `slow` (a statement
 * cancelled at DATABASE_STATEMENT_TIMEOUT_MS, or SQLite busy past its wait), or null.
 */
export function databaseTrouble(error: unknown): 'unreachable' | 'slow' | null {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === '57014' || code === 'SQLITE_BUSY') return 'slow';
  if (typeof code === 'string' && (code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code))) {
    return 'unreachable';
  }
  if (typeof code === 'string' && UNREACHABLE_NETWORK_CODES.has(code)) return 'unreachable';
  if (typeof message === 'string' && LOST_CONNECTION.test(message)) return 'unreachable';
  return null;
}

/**
 * 503 SERVICE_UNAVAILABLE with Retry-After. A write whose connection was lost may or may not have
 * been committed: the message asks for a retry with the same Idempotency-Key, which answers either way.
 */
export const databaseUnavailable = (trouble: 'unreachable' | 'slow'): AppError =>
  new AppError('SERVICE_UNAVAILABLE', {
    headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
    message:
      trouble === 'slow'
        ? 'The database is too busy to answer in time. Retry shortly (a write with the same Idempotency-Key).'
        : 'The database cannot be reached right now. Retry shortly (a write with the same Idempotency-Key).',
  });

/** 503 SERVICE_UNAVAILABLE with Retry-After, for /readyz: `data` names the failing checks. */
export const notReady = (message: string, data: unknown): AppError =>
  new AppError('SERVICE_UNAVAILABLE', {
    headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
    message,
    data,
  });
