import assert from 'node:assert/strict';
import http from 'node:http';
import type { TestApp } from './app.js';

/** Polls until `condition` holds (background work: e-mail, log lines); fails after `timeoutMs`. */
export async function eventually(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function auditActions(t: Pick<TestApp, 'db'>, partnerId: number, action: string) {
  return t.db
    .selectFrom('audit_events')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('action', '=', action)
    .execute();
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * One HTTP request over node:http from a chosen loopback source address, so a test can act as a
 * client IP of its own (127.0.0.0/8 is all loopback on Linux).
 */
export function requestFrom(
  localAddress: string,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, localAddress, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
          }
          resolve({
            status: response.statusCode ?? 0,
            headers,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

export { randomLoopbackAddress } from './proofs.js';
