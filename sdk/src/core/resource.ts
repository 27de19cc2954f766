import type { Client } from 'openapi-fetch';
import type { BaasClient } from '../client.js';
import type { paths } from '../generated/partner.js';
import { ApiError } from './error.js';

/** The typed openapi-fetch client underneath: every path of the document. */
export type Api = Client<paths>;

/** Options every method takes. */
export interface CallOptions {
  /** Aborts the call (and its retries); the abort error is thrown as it is. */
  signal?: AbortSignal | undefined;
  /** Extra headers for this call. */
  headers?: Record<string, string> | undefined;
}

/** Options of a POST under /services/: its Idempotency-Key (default: a fresh UUID, kept across retries). */
export interface IdempotentCallOptions extends CallOptions {
  idempotencyKey?: string | undefined;
}

export const PREFIX = '/baas/api/v1';

/** What a call of the typed client resolves to (openapi-fetch's result). */
interface Result {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The `data` of the success envelope(s) a call returns; void when the envelope has none. */
type DataOf<R extends Result> = EnvelopeData<Exclude<R['data'], undefined>>;
type EnvelopeData<E> = E extends { data: infer D } ? D : undefined;

/** Throws ApiError for any non-2xx answer (or one openapi-fetch read as an error). */
export function assertOk(result: Result): void {
  if (!result.response.ok || result.error !== undefined) throw ApiError.from(result.response, result.error);
}

/** Resolves a call to its envelope's `data`, or throws ApiError for any non-2xx answer. */
export async function unwrap<R extends Result>(pending: Promise<R>): Promise<DataOf<R>> {
  const result = await pending;
  assertOk(result);
  return (result.data as { data?: unknown } | undefined)?.data as DataOf<R>;
}

/** The request options of a call: its headers (and Idempotency-Key) and its abort signal. */
export function init(options: CallOptions | undefined, idempotencyKey?: string) {
  const headers: Record<string, string> = { ...options?.headers };
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  return {
    headers,
    ...(options?.signal ? { signal: options.signal } : {}),
  };
}

/** The request options of an idempotent POST (the retrying transport adds a key when none is given). */
export function post(options: IdempotentCallOptions | undefined) {
  return init(options, options?.idempotencyKey);
}

/** A group of the API's operations, reached through the client that owns it (`client.virtualAccounts`). */
export abstract class APIResource {
  constructor(protected readonly client: BaasClient) {}
  protected get api(): Api {
    return this.client.api;
  }
}
