import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { Redis } from 'ioredis';
import type { Api } from './http.js';

/** Polls `probe` until it returns something other than undefined/false; fails after `timeoutMs`. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 5000,
  intervalMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Every item of a list endpoint, following next_cursor with the largest page. */
// biome-ignore lint/suspicious/noExplicitAny: list items as the API returns them.
export async function listAll(api: Api, url: string, token: string): Promise<any[]> {
  // biome-ignore lint/suspicious/noExplicitAny: list items as the API returns them.
  const items: any[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const separator = url.includes('?') ? '&' : '?';
    const query = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const response = await api.get(`${url}${separator}${query}`, { token });
    assert.equal(response.status, 200, `${url}: ${response.text}`);
    items.push(...response.body.data.items);
    cursor = response.body.data.next_cursor;
    if (!cursor) return items;
  }
  throw new Error(`${url}: pagination did not end`);
}

// ---------------------------------------------------------------------------------------------
// Raw HTTP: chosen source addresses (per-IP budgets) and hand-written requests.

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** A random loopback source address (127.0.0.0/8 is loopback on Linux), so a test has an IP of its own. */
export const randomLoopbackAddress = (): string => {
  const [a, b, c] = randomBytes(3);
  return `127.${(a! % 250) + 1}.${b! % 250}.${(c! % 250) + 2}`;
};

/** One HTTP request over node:http, optionally from a chosen source address. */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; localAddress?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: options.method ?? 'GET',
        headers: options.headers,
        agent: false,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/** Parses a body that must be the contract's envelope; fails with the text otherwise. */
export function envelopeOf(text: string): { status: string; message: string; error_code?: string } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    assert.fail(`not a JSON envelope: ${text.slice(0, 300)}`);
  }
  const envelope = body as { status?: unknown; message?: unknown; error_code?: unknown };
  assert.ok(
    (envelope.status === 'success' || envelope.status === 'error') && typeof envelope.message === 'string',
    `not the contract's envelope: ${text.slice(0, 300)}`,
  );
  return envelope as { status: string; message: string; error_code?: string };
}

// ---------------------------------------------------------------------------------------------
// Redis

export const TEST_REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/** Why Redis cannot be used (for a skip message), or false. */
export async function redisProblem(url = TEST_REDIS_URL): Promise<string | false> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    return false;
  } catch (error) {
    return `Redis not reachable at ${url} (${(error as Error).message})`;
  } finally {
    redis.disconnect();
  }
}

/** Deletes the per-IP counter of `ip` (key `baas:rl:ip:<ip>` in src/platform/http/rate-limit.ts). */
export async function clearIpCounter(ip: string, url = TEST_REDIS_URL): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    await redis.del(`baas:rl:ip:${ip}`);
  } finally {
    redis.disconnect();
  }
}
