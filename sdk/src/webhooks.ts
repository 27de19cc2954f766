import { WebhookVerificationError } from './core/error.js';
import type { WebhookEvent } from './types.js';

/** Request headers as a server framework hands them over (Fetch `Headers`, or Node's object). */
export type WebhookHeaders =
  | { get(name: string): string | null }
  | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from now, either way (default 300 s). */
  toleranceSeconds?: number | undefined;
  /** The time to check against (a Date or epoch milliseconds); default: now. */
  now?: Date | number | undefined;
}

const SECRET_PREFIX = 'whsec_';
const encoder = new TextEncoder();

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(' ') : value;
}

type Bytes = Uint8Array<ArrayBuffer>;

function base64Bytes(text: string): Bytes | undefined {
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return undefined;
  }
}

/** Compares without an early exit, so the time taken tells nothing about where two MACs differ. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

async function hmacSha256(key: Bytes, content: Bytes): Promise<Bytes> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error('webhooks.verify needs Web Crypto (globalThis.crypto.subtle)');
  const cryptoKey = await subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await subtle.sign('HMAC', cryptoKey, content));
}

function keyOf(secret: string): Bytes {
  const bytes = base64Bytes(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
  if (!bytes || bytes.length === 0) throw new TypeError('webhooks.verify: a secret is not whsec_<base64>');
  return bytes;
}

/**
 * Verifies a webhook delivery (Standard Webhooks) and returns its payload, typed by `type`.
 *
 * - `rawBody`: the request body exactly as received (before any JSON parsing).
 * - `headers`: the request's headers; `webhook-id`, `webhook-timestamp` and `webhook-signature` are read.
 * - `secret`: the endpoint's `whsec_…` secret, or several (while you rotate on your side); the
 *   delivery is accepted if any `v1,` signature of the header (the server sends two for 24 hours
 *   after a rotation) is the HMAC-SHA256 of `<id>.<timestamp>.<body>` under any of them.
 *
 * Throws WebhookVerificationError (`reason`: missing_header, invalid_timestamp, timestamp_too_old,
 * timestamp_too_new, no_matching_signature, invalid_payload). Uses Web Crypto, so it runs in Node,
 * Deno, Bun, workers and browsers, and is therefore async.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): Promise<WebhookEvent> {
  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  if (secrets.length === 0) throw new TypeError('webhooks.verify: no secret given');
  const keys = secrets.map(keyOf);

  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signature = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signature) {
    throw new WebhookVerificationError(
      'missing_header',
      'Missing webhook-id, webhook-timestamp or webhook-signature header',
    );
  }
  if (!/^\d{1,15}$/.test(timestamp.trim())) {
    throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not unix seconds');
  }
  const tolerance = options.toleranceSeconds ?? 300;
  const nowMs = options.now === undefined ? Date.now() : Number(options.now);
  const nowSeconds = Math.floor(nowMs / 1000);
  const sent = Number(timestamp.trim());
  if (nowSeconds - sent > tolerance) {
    throw new WebhookVerificationError('timestamp_too_old', 'webhook-timestamp is too old (replayed?)');
  }
  if (sent - nowSeconds > tolerance) {
    throw new WebhookVerificationError('timestamp_too_new', 'webhook-timestamp is in the future');
  }

  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const prefix = encoder.encode(`${id}.${timestamp.trim()}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix, 0);
  signed.set(body, prefix.length);

  const offered = signature
    .split(' ')
    .map((part) => part.trim())
    .filter((part) => part.startsWith('v1,'))
    .map((part) => base64Bytes(part.slice(3)))
    .filter((bytes): bytes is Bytes => bytes !== undefined);

  let matched = false;
  for (const key of keys) {
    const expected = await hmacSha256(key, signed);
    for (const candidate of offered) if (constantTimeEqual(expected, candidate)) matched = true;
  }
  if (!matched) {
    throw new WebhookVerificationError('no_matching_signature', 'No signature matches the secret');
  }

  let payload: unknown;
  try {
    payload = JSON.parse(typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody));
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'The signed body is not JSON');
  }
  if (
    typeof payload !== 'object' ||
    payload === null ||
    typeof (payload as { type?: unknown }).type !== 'string'
  ) {
    throw new WebhookVerificationError('invalid_payload', 'The signed body is not a webhook event');
  }
  return payload as WebhookEvent;
}

/** `webhooks.verify(rawBody, headers, secret, options)`: see verifyWebhook. */
export const webhooks = { verify: verifyWebhook } as const;
