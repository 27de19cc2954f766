import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { TestApp } from './app.js';
import { LOGIN, REGISTER, VERIFY_OTP } from './paths.js';
import type { SmtpSink } from './smtp-sink.js';

export const uniqueEmail = (prefix = 'partner'): string =>
  `${prefix}-${randomBytes(5).toString('hex')}@example.com`;

export const STRONG_PASSWORD = 'Kobo-Ledger-Sunrise-42';

export function registration(overrides: Record<string, unknown> = {}) {
  const email = (overrides['email'] as string | undefined) ?? uniqueEmail();
  return {
    business_name: 'Acme Payments Ltd',
    email,
    password: STRONG_PASSWORD,
    password_confirmation: STRONG_PASSWORD,
    phone: '+234 803 123 4567',
    ...overrides,
  };
}

export interface Partner {
  email: string;
  password: string;
  companyId: number;
  token: string;
}

/** Registers, reads the code from the SMTP sink, verifies and logs in: all over HTTP. */
export async function createPartner(
  t: Pick<TestApp, 'api'>,
  sink: SmtpSink,
  overrides: Record<string, unknown> = {},
): Promise<Partner> {
  const body = registration(overrides);
  const registered = await t.api.post(REGISTER, body);
  assert.equal(registered.status, 201, registered.text);
  const otp = await sink.otpFor(body.email);
  const verified = await t.api.post(VERIFY_OTP, { email: body.email, otp });
  assert.equal(verified.status, 200, verified.text);
  const login = await t.api.post(LOGIN, {
    email: body.email,
    password: body.password,
  });
  assert.equal(login.status, 200, login.text);
  return {
    email: body.email,
    password: body.password as string,
    companyId: registered.body.data.company_id,
    token: login.body.data.token,
  };
}
