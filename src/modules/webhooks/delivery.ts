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
    return {
      succeeded,
      statusCode: result.statusCode,
      latencyMs: result.latencyMs,
      error: succeeded ? null : `http_${result.statusCode}`,
      cause: succeeded ? null : `receiver answered HTTP ${result.statusCode}`,
      url: endpoint.url,
    };
  } catch (error) {
    return {
      succeeded: false,
      statusCode: null,
      latencyMs: 0,
      error: error instanceof DeliveryError ? error.reason : 'connection_failed',
      cause: String(error instanceof DeliveryError ? error.message : error).slice(0, 500),
      url: endpoint.url,
    };
  }
}
