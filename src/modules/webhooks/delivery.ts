import { toIso } from '../../platform/clock.js';
import type { KeyRing } from '../../platform/crypto/keys.js';
import { decrypt } from '../../platform/crypto/secret-box.js';
import { sign } from '../../platform/crypto/standard-webhooks.js';
import { DeliveryError, postJson } from './sender.js';
import type { AddressPolicy } from './ssrf.js';
import type { EndpointRow, EventRow } from './webhooks.repository.js';

export interface DeliveryOutcome {
  succeeded: boolean;
  statusCode: number | null;
  /** 0 unless an HTTP answer came: how long a failed connection took would tell open ports from closed ones. */
  latencyMs: number;
  /** What the partner sees: null, `http_<status>`, or a FailureReason. */
  error: string | null;
  /** The detailed cause (socket error, resolved address), for the server's log only. */
  cause: string | null;
  /** The start of the receiver's answer as text (bodyExcerpt); null when no answer or an empty one came. */
  responseBodyExcerpt: string | null;
  url: string;
}

export interface DeliveryOptions {
  keys: KeyRing;
  timeoutMs: number;
  policy: AddressPolicy;
  now: number;
}

/** The JSON body of an event: identical on every attempt, so only the signature's timestamp moves. */
export function eventBody(event: EventRow): string {
  return `{"type":${JSON.stringify(event.type)},"timestamp":${JSON.stringify(toIso(event.created_at))},"data":${event.payload}}`;
}

/**
 * The start of an answer's body as text a partner can read: UTF-8 (a character the byte cap cut in
 * two is dropped, not mangled; invalid bytes become U+FFFD), control characters other than tab and
 * newline stripped, and any signature or secret of the request (a receiver that echoes its request
 * back) redacted, so the delivery log never shows them. null when nothing is left.
 */
export function bodyExcerpt(body: Buffer, secrets: readonly string[]): string | null {
  let text = new TextDecoder('utf-8')
    .decode(body, { stream: true })
    .replace(/\p{Cc}/gu, (character) => (character === '\n' || character === '\t' ? character : ''));
  for (const secret of secrets) text = text.replaceAll(secret, '[redacted]');
  return text.trim() === '' ? null : text;
}

/** Sends one event to the endpoint with Standard Webhooks headers; never throws. */
export async function deliver(
  event: EventRow,
  endpoint: EndpointRow,
  options: DeliveryOptions,
): Promise<DeliveryOutcome> {
  const body = eventBody(event);
  const secrets = [decrypt(options.keys.encryption, endpoint.secret_encrypted)];
  if (
    endpoint.previous_secret_encrypted &&
    endpoint.previous_secret_expires_at !== null &&
    endpoint.previous_secret_expires_at > options.now
  ) {
    secrets.push(decrypt(options.keys.encryption, endpoint.previous_secret_encrypted));
  }
  const timestamp = Math.floor(options.now / 1000);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'BaaS-Partner-API-Webhooks/1.0',
    'webhook-id': event.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': sign(secrets, event.id, timestamp, body),
  };
  try {
    const result = await postJson(endpoint.url, body, headers, {
      timeoutMs: options.timeoutMs,
      policy: options.policy,
    });
    const succeeded = result.statusCode >= 200 && result.statusCode < 300;
    // The secrets, each signature and its base64 alone: none of them may reach the delivery log.
    const signatures = headers['webhook-signature'].split(' ');
    const hidden = [...secrets, ...signatures, ...signatures.map((signature) => signature.slice(3))];
    return {
      succeeded,
      statusCode: result.statusCode,
      latencyMs: result.latencyMs,
      error: succeeded ? null : `http_${result.statusCode}`,
      cause: succeeded ? null : `receiver answered HTTP ${result.statusCode}`,
      responseBodyExcerpt: bodyExcerpt(result.body, hidden),
      url: endpoint.url,
    };
  } catch (error) {
    return {
      succeeded: false,
      statusCode: null,
      latencyMs: 0,
      error: error instanceof DeliveryError ? error.reason : 'connection_failed',
      cause: String(error instanceof DeliveryError ? error.message : error).slice(0, 500),
      responseBodyExcerpt: null,
      url: endpoint.url,
    };
  }
}
