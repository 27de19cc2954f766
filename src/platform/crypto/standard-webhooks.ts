import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const PREFIX = 'whsec_';
/** How far a message's timestamp may be from our clock, either way (Standard Webhooks' default). */
export const SIGNATURE_TOLERANCE_SECONDS = 5 * 60;

/** `whsec_` + base64 of 32 random bytes (Standard Webhooks secret format). */
export const newWebhookSecret = (): string => `${PREFIX}${randomBytes(32).toString('base64')}`;

/** The HMAC key of a secret: the bytes its base64 encodes (not the string). */
const keyOf = (secret: string): Buffer =>
  Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');

const hmac = (key: Buffer, id: string, timestampSeconds: number | string, body: string | Buffer): Buffer =>
  createHmac('sha256', key).update(`${id}.${timestampSeconds}.`).update(body).digest();

/**
 * Standard Webhooks signature: `v1,` + base64 HMAC-SHA256, keyed with the secret's decoded bytes,
 * over `<webhook-id>.<webhook-timestamp>.<body>`. Several secrets give space-separated signatures.
 */
export function sign(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string | Buffer,
): string {
  return secrets
    .map((secret) => `v1,${hmac(keyOf(secret), id, timestampSeconds, body).toString('base64')}`)
    .join(' ');
}

/** Request headers, with the three a signed message carries: webhook-id, -timestamp, -signature. */
export type SignedHeaders = Record<string, string | string[] | undefined>;

/**
 * Checks a signed message: why it is refused, or undefined when one of its `v1,` signatures is the
 * body's under `secret` and its timestamp is within the tolerance of `nowSeconds`. Comparisons are
 * constant-time; the raw body is signed as received (bytes), never re-serialised.
 */
export function verify(
  secret: string,
  headers: SignedHeaders,
  body: Buffer,
  nowSeconds: number,
): string | undefined {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') {
    return 'webhook-id, webhook-timestamp and webhook-signature are required, once each.';
  }
  if (id === '' || id.length > 255) return 'webhook-id must be 1 to 255 characters.';
  if (!/^[0-9]{1,12}$/.test(timestamp)) return 'webhook-timestamp must be unix seconds.';
  if (Math.abs(nowSeconds - Number(timestamp)) > SIGNATURE_TOLERANCE_SECONDS) {
    return 'webhook-timestamp is more than 5 minutes from the server clock.';
  }
  const expected = hmac(keyOf(secret), id, timestamp, body);
  for (const candidate of signatures.split(' ')) {
    if (!candidate.startsWith('v1,')) continue;
    const given = Buffer.from(candidate.slice(3), 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return undefined;
  }
  return 'No webhook-signature matches the body.';
}
