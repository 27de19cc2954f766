import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { extend } from '../../platform/objects.js';
import { type AddressPolicy, addressAllowed } from './ssrf.js';

/**
 * What a partner is told about an attempt that got no HTTP answer. Socket errors, resolved addresses
 * and connect timings stay in the server's log: shown to the partner they would make webhooks a port
 * scanner of whatever network the guard lets the sender reach.
 */
export type FailureReason = 'connection_failed' | 'timeout' | 'destination_not_allowed';

/** `message` is the detailed cause, for the server's log only; `reason` is what the partner sees. */
export class DeliveryError extends Error {
  override name = 'DeliveryError';
  readonly reason: FailureReason;
  constructor(reason: FailureReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

export interface DeliveryResult {
  statusCode: number;
  latencyMs: number;
  /** The first bytes of the answer's body (at most EXCERPT_BYTES), as far as they came in time. */
  body: Buffer;
}

/** How much of an answer's body is read: enough to show a receiver's error, never a huge body. */
export const EXCERPT_BYTES = 500;
/**
 * How long the body is waited for once the status line came: a receiver that trickles its body, or
 * never ends it, does not hold a delivery slot of the worker for the whole timeout.
 */
export const BODY_READ_MS = 2000;

/**
 * Resolves the host once, refuses it if any of its addresses breaks the policy, and hands the
 * checked address to the socket: the connection goes exactly where the check looked, so a DNS
 * answer that changes between check and connect (rebinding) cannot slip past.
 */
function guardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find((entry) => !addressAllowed(entry.address, policy));
      if (addresses.length === 0 || refused) {
        const blocked = new DeliveryError(
          'destination_not_allowed',
          `${hostname} resolves to a disallowed address (${refused?.address ?? 'none'})`,
        );
        return callback(blocked as NodeJS.ErrnoException, '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  };
}

const RULE: Record<Exclude<AddressPolicy, 'any'>, string> = {
  'public-only': 'webhooks are only sent to public addresses',
  'no-link-local': 'webhooks are never sent to link-local or cloud metadata addresses',
};

/**
 * Checks a URL's host against the policy before anything is stored (IP literals and DNS names).
 * Under a guard, a refused name is not told apart from one that does not resolve, and what it
 * resolved to is not told: either would let a partner map the operator's internal DNS.
 */
export async function checkDestination(url: URL, policy: AddressPolicy): Promise<string | undefined> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (policy === 'any')
    return isIP(host) || (await resolves(host)).length > 0 ? undefined : `${host} does not resolve`;
  if (isIP(host)) return addressAllowed(host, policy) ? undefined : `${host} is not allowed: ${RULE[policy]}`;
  const addresses = await resolves(host);
  const refused = addresses.length === 0 || addresses.some((address) => !addressAllowed(address, policy));
  return refused ? `${host} must resolve, and only to allowed addresses: ${RULE[policy]}` : undefined;
}

/** Every address of a name; none when it does not resolve. */
function resolves(host: string): Promise<string[]> {
  return new Promise((resolve) => {
    dnsLookup(host, { all: true }, (error, addresses: LookupAddress[]) =>
      resolve(error ? [] : addresses.map((entry) => entry.address)),
    );
  });
}

/**
 * POSTs a JSON body; a timeout, a refused address or a network error throws DeliveryError. The
 * latency is measured only when an HTTP answer came (to its status line); of the body only the
 * first EXCERPT_BYTES are kept, read for at most BODY_READ_MS.
 */
export function postJson(
  target: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; policy: AddressPolicy },
): Promise<DeliveryResult> {
  const url = new URL(target);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !addressAllowed(host, options.policy)) {
    return Promise.reject(new DeliveryError('destination_not_allowed', `${host} is not an allowed address`));
  }
  const client = url.protocol === 'https:' ? https : http;
  const started = performance.now();
  let answered = false;
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: extend(headers, { 'content-length': Buffer.byteLength(body) }),
        lookup: guardedLookup(options.policy),
        agent: false,
        signal: AbortSignal.timeout(options.timeoutMs),
      },
      (response) => {
        answered = true;
        const latencyMs = Math.round(performance.now() - started);
        const kept: Buffer[] = [];
        let keptBytes = 0;
        // The answer is settled by whichever comes first: enough bytes, the body's end, its time cap,
        // or the connection failing mid-body (the status already came, so that is still the answer).
        const done = () => {
          clearTimeout(bodyTimer);
          response.destroy();
          resolve({ statusCode: response.statusCode ?? 0, latencyMs, body: Buffer.concat(kept, keptBytes) });
        };
        const bodyTimer = setTimeout(done, Math.min(BODY_READ_MS, options.timeoutMs));
        response.on('data', (chunk: Buffer) => {
          const part = chunk.subarray(0, EXCERPT_BYTES - keptBytes);
          kept.push(part);
          keptBytes += part.length;
          if (keptBytes >= EXCERPT_BYTES) done();
        });
        response.on('end', done);
        response.on('close', done);
        response.on('error', done);
      },
    );
    request.on('error', (error: Error) => {
      // Once the status came, a failure while reading the body (the cap destroying it, a reset, the
      // overall timeout) is settled by the response's handlers above.
      if (answered) return;
      if (error instanceof DeliveryError) return reject(error);
      if (error.name === 'AbortError' || error.name === 'TimeoutError') {
        return reject(new DeliveryError('timeout', `no response within ${options.timeoutMs} ms`));
      }
      // Refused, reset, unresolvable, not HTTP, TLS: all one reason to the partner.
      const code = (error as NodeJS.ErrnoException).code ?? error.name;
      reject(new DeliveryError('connection_failed', `${code}: ${error.message}`));
    });
    request.end(body);
  });
}
