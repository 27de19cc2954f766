import type { ErrorCode, Transfer } from '../types.js';

/** The base of every error the SDK throws (`err instanceof BaasError`). */
export class BaasError extends Error {
  override name = 'BaasError';
}

/**
 * The API answered with an error envelope (`status: "error"`), or a non-2xx status, after any
 * retries. `errorCode` is the envelope's `error_code` (null when the answer was not the API's
 * envelope, e.g. a proxy's 502 page), `errors` maps fields to messages (422 VALIDATION_FAILED, 409
 * ONBOARDING_INCOMPLETE), `data` is what some errors carry (409 VIRTUAL_ACCOUNT_EXISTS: the existing
 * account; 409 DUPLICATE_REFERENCE: the existing transfer), and `requestId` is the response's
 * X-Request-Id, to quote to support.
 */
export class ApiError extends BaasError {
  override name = 'ApiError';
  readonly status: number;
  readonly errorCode: ErrorCode | null;
  readonly errors: Record<string, string[]>;
  readonly requestId: string | null;
  readonly data: unknown;
  /** The response's headers (e.g. `retry-after` on 429). */
  readonly headers: Headers;
  /** The parsed body: the envelope, or the raw text when it was not JSON. */
  readonly body: unknown;

  constructor(init: {
    status: number;
    message: string;
    errorCode: ErrorCode | null;
    errors?: Record<string, string[]> | undefined;
    requestId: string | null;
    data?: unknown;
    headers: Headers;
    body: unknown;
  }) {
    super(init.message);
    this.status = init.status;
    this.errorCode = init.errorCode;
    this.errors = init.errors ?? {};
    this.requestId = init.requestId;
    this.data = init.data;
    this.headers = init.headers;
    this.body = init.body;
  }

  /** Builds the error from a non-2xx response and its (already read) body. */
  static from(response: Response, body: unknown): ApiError {
    const envelope = isEnvelope(body) ? body : undefined;
    return new ApiError({
      status: response.status,
      message:
        envelope?.message ??
        `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''} (not an API error envelope)`,
      errorCode: (envelope?.error_code as ErrorCode | undefined) ?? null,
      errors: envelope?.errors,
      requestId: response.headers.get('x-request-id'),
      data: envelope?.data,
      headers: response.headers,
      body,
    });
  }
}

interface LooseEnvelope {
  status: string;
  message: string;
  error_code?: string;
  errors?: Record<string, string[]>;
  data?: unknown;
}

function isEnvelope(body: unknown): body is LooseEnvelope {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { message?: unknown }).message === 'string' &&
    typeof (body as { status?: unknown }).status === 'string'
  );
}

/**
 * No HTTP answer came (connection refused or dropped, DNS failure, `timeoutMs` passed) after every
 * allowed attempt. `cause` is the last underlying error; `attempts` counts the tries made.
 */
export class ConnectionError extends BaasError {
  override name = 'ConnectionError';
  readonly method: string;
  readonly url: string;
  readonly attempts: number;

  constructor(init: { method: string; url: string; attempts: number; cause: unknown }) {
    const reason = init.cause instanceof Error ? init.cause.message : String(init.cause);
    super(
      `${init.method} ${init.url} failed after ${init.attempts} attempt${init.attempts === 1 ? '' : 's'}: ${reason}`,
      { cause: init.cause },
    );
    this.method = init.method;
    this.url = init.url;
    this.attempts = init.attempts;
  }
}

/**
 * `transfers.waitForFinal` gave up: the transfer was still `pending` or `processing` when
 * `timeoutMs` ran out. It is not failed: its outcome is still coming (by webhook, or wait again).
 * Never send it again under a new reference. `transfer` is the last state read.
 */
export class TransferWaitTimeoutError extends BaasError {
  override name = 'TransferWaitTimeoutError';
  readonly transfer: Transfer;

  constructor(transfer: Transfer, timeoutMs: number) {
    super(
      `Transfer ${transfer.id} (${transfer.reference}) is still ${transfer.status} after ${timeoutMs} ms`,
    );
    this.transfer = transfer;
  }
}

/**
 * `onboarding.login`: the password was right, but the user has a second factor, so no session yet.
 * Send `challengeToken` with the authenticator's code (or a recovery code) to
 * `onboarding.loginSecondFactor` within `expiresIn` seconds.
 */
export class SecondFactorRequiredError extends BaasError {
  override name = 'SecondFactorRequiredError';
  readonly challengeToken: string;
  readonly expiresIn: number;

  constructor(challengeToken: string, expiresIn: number) {
    super('This user has a second factor: finish the login with onboarding.loginSecondFactor and a code.');
    this.challengeToken = challengeToken;
    this.expiresIn = expiresIn;
  }
}

/** Why `webhooks.verify` refused a delivery. */
export type WebhookVerificationReason =
  | 'missing_header'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'no_matching_signature'
  | 'invalid_payload';

/** A webhook delivery that must not be trusted; answer it with 400 (or 401) and do not act on it. */
export class WebhookVerificationError extends BaasError {
  override name = 'WebhookVerificationError';
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.reason = reason;
  }
}
