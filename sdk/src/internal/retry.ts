import { ConnectionError } from '../core/error.js';

/** What the retrying transport is told to do (BaasClientOptions fills it in). */
export interface RetryPolicy {
  /** Retries after the first attempt (so at most maxRetries + 1 requests). */
  maxRetries: number;
  /** First backoff step; each retry doubles it, with jitter (50–100 % of the step). */
  retryBaseMs: number;
  /** Cap of one backoff step. */
  retryMaxMs: number;
  /** A `Retry-After` longer than this is not waited for: the 429/503 is thrown instead. */
  maxRetryAfterMs: number;
  /** Per attempt; 0 or undefined: none. A time-out counts as a network error. */
  timeoutMs: number | undefined;
  /** What performs one attempt (default: the global fetch). */
  fetch: (request: Request, init?: RequestInit) => Promise<Response>;
  onRetry: ((event: RetryEvent) => void) | undefined;
}

/** Told to `onRetry` before the SDK waits and tries again. */
export interface RetryEvent {
  method: string;
  url: string;
  /** The attempt that failed (1 for the first request). */
  attempt: number;
  /** How long the SDK waits before the next attempt. */
  delayMs: number;
  /** The HTTP status that is retried, or undefined after a network error. */
  status: number | undefined;
  /** The envelope's error_code when there was one (e.g. IDEMPOTENCY_IN_PROGRESS). */
  errorCode: string | undefined;
  /** The network error, when no HTTP answer came. */
  error: unknown;
  /** The Idempotency-Key sent on every attempt, if any. */
  idempotencyKey: string | null;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const RETRIED_SERVER_ERRORS = new Set([500, 502, 503, 504]);

/**
 * POST under /services/ honours Idempotency-Key (docs/partner-guide.md, "Authentication"): the SDK
 * always sends one.
 */
export function needsIdempotencyKey(request: Request): boolean {
  return request.method === 'POST' && new URL(request.url).pathname.includes('/services/');
}

/** Seconds (or an HTTP date) of a Retry-After header, in milliseconds; undefined when absent or bad. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const value = header.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The n-th backoff step (n from 1): base·2^(n-1) capped at max, then 50–100 % of it. */
export function backoffMs(policy: Pick<RetryPolicy, 'retryBaseMs' | 'retryMaxMs'>, attempt: number): number {
  const step = Math.min(policy.retryMaxMs, policy.retryBaseMs * 2 ** (attempt - 1));
  return Math.round(step / 2 + Math.random() * (step / 2));
}

async function errorCodeOf(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.clone().json()) as { error_code?: unknown };
    return typeof body?.error_code === 'string' ? body.error_code : undefined;
  } catch {
    return undefined;
  }
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A fetch that adds an Idempotency-Key to every POST under /services/ (unless the caller set one)
 * and retries, with the same key and a fresh copy of the body on every attempt:
 * - network errors and time-outs, and 500/502/503/504: only for GET/HEAD/OPTIONS/PUT/DELETE or a
 *   request carrying an Idempotency-Key (anything else might run twice);
 * - 409 IDEMPOTENCY_IN_PROGRESS (the first request with that key is still running);
 * - 429 (not OTP_ATTEMPTS_EXCEEDED, whose code is dead): any method, since the request was refused
 *   before it ran.
 * Waits the server's Retry-After when given (up to maxRetryAfterMs), else exponential backoff with
 * jitter. After the last attempt the response is returned as it is (the caller turns it into an
 * ApiError), and a network error becomes a ConnectionError. An abort by the caller's signal is
 * thrown as it is, never retried.
 */
export function retryingFetch(policy: RetryPolicy): (request: Request) => Promise<Response> {
  return async (request: Request) => {
    if (needsIdempotencyKey(request) && !request.headers.has('idempotency-key')) {
      request.headers.set('idempotency-key', globalThis.crypto.randomUUID());
    }
    const idempotencyKey = request.headers.get('idempotency-key');
    const retriable = SAFE_METHODS.has(request.method) || idempotencyKey !== null;
    const callerSignal = request.signal;

    for (let attempt = 1; ; attempt++) {
      const copy = request.clone();
      const timeout = policy.timeoutMs ? AbortSignal.timeout(policy.timeoutMs) : undefined;
      const signal = timeout ? AbortSignal.any([callerSignal, timeout]) : undefined;
      const retry = async (
        delayMs: number,
        details: Pick<RetryEvent, 'status' | 'errorCode' | 'error'>,
      ): Promise<void> => {
        policy.onRetry?.({
          method: request.method,
          url: request.url,
          attempt,
          delayMs,
          idempotencyKey,
          ...details,
        });
        await sleep(delayMs, callerSignal);
      };

      let response: Response;
      try {
        response = await policy.fetch(copy, signal ? { signal } : undefined);
      } catch (error) {
        if (callerSignal.aborted) throw error;
        if (!retriable || attempt > policy.maxRetries) {
          throw new ConnectionError({
            method: request.method,
            url: request.url,
            attempts: attempt,
            cause: error,
          });
        }
        await retry(backoffMs(policy, attempt), { status: undefined, errorCode: undefined, error });
        continue;
      }

      if (attempt > policy.maxRetries) return response;
      const status = response.status;
      let errorCode: string | undefined;
      let worthRetrying = false;
      if (status === 429) {
        errorCode = await errorCodeOf(response);
        worthRetrying = errorCode !== 'OTP_ATTEMPTS_EXCEEDED';
      } else if (status === 409) {
        errorCode = await errorCodeOf(response);
        worthRetrying = errorCode === 'IDEMPOTENCY_IN_PROGRESS';
      } else if (RETRIED_SERVER_ERRORS.has(status)) {
        worthRetrying = retriable;
      }
      if (!worthRetrying) return response;

      const asked = retryAfterMs(response.headers.get('retry-after'));
      if (asked !== undefined && asked > policy.maxRetryAfterMs) return response;
      await response.body?.cancel().catch(() => undefined);
      await retry(asked ?? backoffMs(policy, attempt), { status, errorCode, error: undefined });
    }
  };
}
