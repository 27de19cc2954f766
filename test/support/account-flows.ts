import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { TestApp } from './app.js';
import { registration } from './factories.js';
import type { ApiResponse } from './http.js';
import { REGISTER, VERIFY_OTP } from './paths.js';
import type { SmtpSink } from './smtp-sink.js';

/** A random password no common-password list holds. */
export const randomPassword = (length = 24): string =>
  randomBytes(length).toString('base64url').slice(0, length);

export interface Registered {
  email: string;
  password: string;
  companyId: number;
  response: ApiResponse;
}

export async function register(t: Pick<TestApp, 'api'>, overrides: Record<string, unknown> = {}) {
  const body = registration(overrides);
  const response = await t.api.post(REGISTER, body);
  assert.equal(response.status, 201, response.text);
  return {
    email: String(body.email).trim().toLowerCase(),
    password: body.password as string,
    companyId: response.body.data.company_id as number,
    response,
  } satisfies Registered;
}

/** Registers and reads the e-mailed code (the n-th mail to the address). */
export async function registerWithOtp(
  t: Pick<TestApp, 'api'>,
  sink: SmtpSink,
  overrides: Record<string, unknown> = {},
): Promise<Registered & { otp: string }> {
  const registered = await register(t, overrides);
  const otp = await sink.otpFor(registered.email);
  return { ...registered, otp };
}

/** Registers and verifies; no session. */
export async function verifiedAccount(
  t: Pick<TestApp, 'api'>,
  sink: SmtpSink,
  overrides: Record<string, unknown> = {},
): Promise<Registered> {
  const registered = await registerWithOtp(t, sink, overrides);
  const verified = await t.api.post(VERIFY_OTP, { email: registered.email, otp: registered.otp });
  assert.equal(verified.status, 200, verified.text);
  return registered;
}

/** A 6-digit code that is certainly not `code`. */
export const wrongCode = (code: string, offset = 1): string =>
  String((Number(code) + offset) % 1_000_000).padStart(6, '0');

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
