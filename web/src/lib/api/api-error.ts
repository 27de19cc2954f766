import { ApiError } from '@baas/sdk';

/*
 * A failed API call is the SDK's ApiError (status, errorCode, errors, data, headers): the apps and
 * the SDK read the API's error envelope one way. Here, what the apps add: turning openapi-fetch's
 * answers into it, and saying it to a person.
 */

interface FetchResult<T> {
  /** The success envelope; `data` is absent on answers that carry only a message. */
  data?: { status?: string; data?: T };
  /** The parsed error body (the envelope, or text when the answer was not JSON). */
  error?: unknown;
  response: Response;
}

/** The `data` of a successful answer; anything else becomes an ApiError (for TanStack Query). */
export async function unwrap<T>(request: Promise<FetchResult<T>>): Promise<T> {
  const { data, error, response } = await request;
  if (data !== undefined && response.ok) return data.data as T;
  throw ApiError.from(response, error);
}

/** The wait a 429 asked for (Retry-After, in whole seconds), or null when it named none. */
export function retryAfterSeconds(error: ApiError): number | null {
  const header = error.headers.get('retry-after');
  const seconds = header === null ? Number.NaN : Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds) : null;
}

/** "5 minutes", "1 minute", "30 seconds": a wait as a person reads it. */
export function describeWait(seconds: number): string {
  if (seconds < 60) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

/**
 * A dashboard session made without a second factor, where the business needs one (live money, or
 * everything): the dashboard also shows, once for every page, where to turn it on
 * (SecondFactorRequiredNotice).
 */
export const isSecondFactorRequired = (error: unknown): error is ApiError =>
  error instanceof ApiError && error.errorCode === 'SECOND_FACTOR_REQUIRED';

/** What to tell a person about an error the page does not explain in its own words. */
export function errorMessage(error: unknown): string {
  if (isSecondFactorRequired(error)) {
    return 'This needs a sign-in with a second factor. Turn on your second factor in Settings → Users (Your second factor), then sign out and sign in again with its code.';
  }
  if (error instanceof ApiError) {
    const wait = retryAfterSeconds(error);
    if (error.errorCode === 'RATE_LIMITED' && wait !== null) {
      return `Too many requests. Try again in ${describeWait(wait)}.`;
    }
    if (error.status >= 500) return 'Something went wrong on our side. Try again in a moment.';
    // Not the API's envelope (a proxy's page): its status is all there is to say.
    if (error.errorCode === null) return `The service answered ${error.status}.`;
    return error.message;
  }
  return 'The service could not be reached. Check your connection and try again.';
}
