import assert from 'node:assert/strict';
import { ApiError, BaasClient, type BaasClientOptions, type ErrorCode } from '../../sdk/src/index.js';

/** What a client's transport saw: every response, in order (to compare request ids with). */
export interface Recorded {
  client: BaasClient;
  requests: Request[];
  responses: Response[];
}

/**
 * The SDK client (from its sources) on the test app, recording each HTTP attempt. Retries back off
 * in milliseconds, so a test never waits long.
 */
export function sdkClient(
  baseUrl: string,
  token?: string,
  options: Partial<BaasClientOptions> = {},
): Recorded {
  const requests: Request[] = [];
  const responses: Response[] = [];
  const client = new BaasClient({
    baseUrl,
    token,
    retryBaseMs: 5,
    ...options,
    fetch: async (request, init) => {
      requests.push(request);
      const response = await (options.fetch ?? fetch)(request, init);
      responses.push(response);
      return response;
    },
  });
  return { client, requests, responses };
}

/** Awaits `promise`, which must reject with an ApiError of `status` and `errorCode`; returns it. */
export async function apiError(
  promise: Promise<unknown>,
  status: number,
  errorCode: ErrorCode,
): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ApiError, `expected an ApiError, got ${String(error)}`);
    assert.equal(error.status, status, error.message);
    assert.equal(error.errorCode, errorCode, error.message);
    return error;
  }
  assert.fail(`expected ${status} ${errorCode}, the call succeeded`);
}

/** YYYY-MM-DD of today (UTC), `days` days before. */
export function utcDay(daysBefore = 0): string {
  return new Date(Date.now() - daysBefore * 86_400_000).toISOString().slice(0, 10);
}
