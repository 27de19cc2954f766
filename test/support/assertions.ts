import assert from 'node:assert/strict';
import type { ApiResponse } from './http.js';

/**
 * Formats the API promises: an app-made id, and an ISO-8601 UTC instant (any / exactly millisecond
 * precision).
 */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
export const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export interface ErrorExpectation {
  /** Fields `errors` must name, each with a non-empty list of messages. */
  fields?: readonly string[];
  /** The error carries `data` (VIRTUAL_ACCOUNT_EXISTS holds the existing account); otherwise it must not. */
  data?: boolean;
  /** Names the request in a failure message, where one test checks many. */
  what?: string;
}

/**
 * The error envelope (docs/partner-guide.md, "Responses and errors"): this status and error_code,
 * `status: "error"`, a message to show, `errors` naming each field asked about, and no `data` unless
 * the error carries it.
 */
export function assertError(
  response: ApiResponse,
  status: number,
  errorCode: string,
  { fields = [], data = false, what }: ErrorExpectation = {},
): void {
  const context = what ? `${what}: ${response.text}` : response.text;
  assert.equal(response.status, status, context);
  assert.equal(response.body.status, 'error', context);
  assert.equal(response.body.error_code, errorCode, context);
  assert.equal(typeof response.body.message, 'string', context);
  assert.ok(response.body.message.length > 0, `an error message expected: ${context}`);
  for (const field of fields) {
    const messages = response.body.errors?.[field];
    assert.ok(
      Array.isArray(messages) &&
        messages.length > 0 &&
        messages.every((message) => typeof message === 'string' && message.length > 0),
      `errors.${field} expected in ${context}`,
    );
  }
  if (data) assert.notEqual(response.body.data, undefined, `data expected: ${context}`);
  else assert.equal(response.body.data, undefined, `an error carries no data here: ${context}`);
}

/** Parses a body that must be the API's envelope; fails with the text otherwise. */
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
    `not the API's envelope: ${text.slice(0, 300)}`,
  );
  return envelope as { status: string; message: string; error_code?: string };
}

/** Retry-After as whole seconds; fails unless it is a positive integer. */
export function retryAfterSeconds(response: { headers: Headers }): number {
  const header = response.headers.get('retry-after');
  assert.ok(header !== null, 'Retry-After header expected');
  assert.match(header, /^[0-9]+$/, `Retry-After must be delta-seconds, got ${header}`);
  const seconds = Number(header);
  assert.ok(seconds >= 1, `Retry-After must be at least 1, got ${seconds}`);
  return seconds;
}

/**
 * Polls `probe` until it returns something other than undefined or false (background work: mail,
 * webhooks, log lines) and returns that; fails after `timeoutMs`.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 10_000,
  intervalMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
