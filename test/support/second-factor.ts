import assert from 'node:assert/strict';
import type { TestApp } from './app.js';
import { LOGIN, LOGIN_SECOND_FACTOR, MY_SECOND_FACTOR, MY_SECOND_FACTOR_CONFIRM } from './paths.js';
import { totp } from './totp.js';

/**
 * A dashboard user's second factor in tests (docs/partner-guide.md, "Second factor"): enrolled over
 * HTTP; codes computed by the tests' own authenticator (support/totp.ts) at the app's clock where the
 * test has it (a TestApp), else at the real time (an app in another process keeps real time).
 */

export interface EnrolledFactor {
  secret: string;
  /** The recovery codes not used yet by these helpers (each works once). */
  recoveryCodes: string[];
}

/** What the helpers read: the API and, when the test has one, the app's clock. */
type Kit = Pick<TestApp, 'api'> & Partial<Pick<TestApp, 'clock'>>;

export const appNow = (t: Kit): number => t.clock?.now() ?? Date.now();

/** Enrols a second factor for the session's user (start, then confirm with the app's current code). */
export async function enrolSecondFactor(t: Kit, token: string): Promise<EnrolledFactor> {
  const started = await t.api.post(MY_SECOND_FACTOR, undefined, { token });
  assert.equal(started.status, 200, started.text);
  const secret = started.body.data.secret as string;
  const confirmed = await t.api.post(MY_SECOND_FACTOR_CONFIRM, { code: totp(secret, appNow(t)) }, { token });
  assert.equal(confirmed.status, 200, confirmed.text);
  return { secret, recoveryCodes: [...(confirmed.body.data.recovery_codes as string[])] };
}

/**
 * Logs in a user with a second factor: the password, then a recovery code of theirs (so that logins
 * in one 30-second step need no clock moved; each code once), or the app's current code when none
 * is left. Returns the login answer's data (a session made with the factor).
 */
export async function loginWithSecondFactor(
  t: Kit,
  account: { email: string; password: string; secondFactor: EnrolledFactor },
  session?: 'bearer' | 'cookie',
) {
  const first = await t.api.post(LOGIN, { email: account.email, password: account.password });
  assert.equal(first.status, 200, first.text);
  assert.equal(first.body.data.second_factor_required, true, first.text);
  const recovery = account.secondFactor.recoveryCodes.shift();
  const second = await t.api.post(LOGIN_SECOND_FACTOR, {
    challenge_token: first.body.data.challenge_token,
    ...(recovery ? { recovery_code: recovery } : { code: totp(account.secondFactor.secret, appNow(t)) }),
    ...(session ? { session } : {}),
  });
  assert.equal(second.status, 200, second.text);
  return second.body.data as { token: string; environment: string };
}
