/** The API's error envelope (CONTRACT 1) as the console reads it. */
export interface ErrorEnvelope {
  status?: string;
  message?: string;
  error_code?: string;
  errors?: Record<string, string[]>;
}

/**
 * A failed API call: the HTTP status, the envelope's code, message and `errors`, and for 429 the
 * wait the server asked for (Retry-After, in seconds).
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly errors: Record<string, string[]>;
  readonly retryAfterSeconds: number | null;

  constructor(status: number, body: ErrorEnvelope | undefined, retryAfter: string | null) {
    super(body?.message || `The service answered ${status}.`);
    this.name = 'ApiError';
    this.status = status;
    this.code = body?.error_code ?? 'UNKNOWN';
    this.errors = body?.errors ?? {};
    const seconds = retryAfter === null ? Number.NaN : Number(retryAfter);
    this.retryAfterSeconds = Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds) : null;
  }
}

interface FetchResult<T> {
  /** The success envelope; `data` is absent on answers that carry only a message. */
  data?: { status?: string; data?: T };
  error?: unknown;
  response: Response;
}

/** The `data` of a successful answer; anything else becomes an ApiError (for TanStack Query). */
export async function unwrap<T>(request: Promise<FetchResult<T>>): Promise<T> {
  const { data, error, response } = await request;
  if (data !== undefined && response.ok) return data.data as T;
  throw new ApiError(
    response.status,
    (error ?? undefined) as ErrorEnvelope | undefined,
    response.headers.get('retry-after'),
  );
}

/** "5 minutes", "1 minute", "30 seconds": a wait as a person reads it. */
export function describeWait(seconds: number): string {
  if (seconds < 60) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

/** What to tell a person about an error the console does not explain in its own words. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 'RATE_LIMITED' && error.retryAfterSeconds !== null) {
      return `Too many requests. Try again in ${describeWait(error.retryAfterSeconds)}.`;
    }
    if (error.status >= 500) return 'Something went wrong on our side. Try again in a moment.';
    return error.message;
  }
  return 'The service could not be reached. Check your connection and try again.';
}
