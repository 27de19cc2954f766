import { ApiError } from '@baas/sdk';
import { QueryClient } from '@tanstack/react-query';

/** Retries of a failure that may pass (a 5xx, no answer at all), after the first attempt. */
export const MAX_RETRIES = 3;

/**
 * Whether a failed query is asked again: an answer the server gave on purpose (4xx: not found,
 * signed out, refused, rate limited) never is, since asking again gets the same answer and, in a
 * loop, the IP rate limited (issue 30); a 5xx or a network failure is, at most MAX_RETRIES times.
 */
export function shouldRetry(failures: number, error: unknown): boolean {
  if (error instanceof ApiError && error.status < 500) return false;
  return failures < MAX_RETRIES;
}

/** 1 s, 2 s, then 4 s before the retries (TanStack counts the failures so far from 0). */
export const retryDelay = (failures: number): number => 1000 * 2 ** failures;

/** The apps' query client: the retry policy above (docs/decisions.md, "Retries in the web apps"). */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 30_000, retry: shouldRetry, retryDelay, refetchOnWindowFocus: false },
    },
  });
}
