import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { type AddressPolicy, addressAllowed } from './ssrf.js';

export class DeliveryError extends Error {
  override name = 'DeliveryError';
  /** How long the attempt took before it failed (0 when refused before connecting). */
  readonly latencyMs: number;
  constructor(message: string, latencyMs = 0) {
    super(message);
    this.latencyMs = latencyMs;
  }
}

export interface DeliveryResult {
  statusCode: number;
  latencyMs: number;
}

const MAX_RESPONSE_BYTES = 64 * 1024;

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

/** Checks a URL's host against the policy before anything is stored (IP literals and DNS names). */
export async function checkDestination(url: URL, policy: AddressPolicy): Promise<string | undefined> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return addressAllowed(host, policy) ? undefined : `${host} is not a public address`;
  return new Promise((resolve) => {
    dnsLookup(host, { all: true }, (error, addresses: LookupAddress[]) => {
      if (error || addresses.length === 0) return resolve(`${host} does not resolve`);
      const refused = addresses.find((entry) => !addressAllowed(entry.address, policy));
      resolve(refused ? `${host} resolves to ${refused.address}, which is not a public address` : undefined);
    });
  });
}

/** POSTs a JSON body; a timeout, a refused address or a network error throws DeliveryError. */
export function postJson(
  target: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; policy: AddressPolicy },
): Promise<DeliveryResult> {
  const url = new URL(target);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !addressAllowed(host, options.policy)) {
    return Promise.reject(new DeliveryError(`${host} is not a public address`));
  }
  const client = url.protocol === 'https:' ? https : http;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        lookup: guardedLookup(options.policy),
        agent: false,
        signal: AbortSignal.timeout(options.timeoutMs),
      },
      (response) => {
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > MAX_RESPONSE_BYTES) response.destroy();
        });
        const done = () =>
          resolve({
            statusCode: response.statusCode ?? 0,
            latencyMs: Math.round(performance.now() - started),
          });
        response.on('end', done);
        response.on('close', done);
        response.on('error', done);
      },
    );
    request.on('error', (error: Error) => {
      const message =
        error.name === 'AbortError' || error.name === 'TimeoutError'
          ? `no response within ${options.timeoutMs} ms`
          : error instanceof DeliveryError
            ? error.message
            : `${(error as NodeJS.ErrnoException).code ?? error.name}: ${error.message}`;
      reject(new DeliveryError(message, Math.round(performance.now() - started)));
    });
    request.end(body);
  });
}
