import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adminGet, adminHeaders, adminPost, currentAdminDocument, partnerRecord } from '../support/admin.js';
import { DIALECTS, TEST_ENCRYPTION_KEY, useApp } from '../support/app.js';
import { assertError, retryAfterSeconds } from '../support/assertions.js';
import { uniqueEmail } from '../support/factories.js';
import { newPartner } from '../support/partners.js';
import { ADMIN_PARTNERS, API_KEYS, adminDocumentUrl, BUSINESS_INFO } from '../support/paths.js';
import {
  accept,
  auditEvents,
  base32Decode,
  type ConsoleSession,
  consoleGet,
  consolePost,
  cookieOf,
  HOST_COOKIE,
  hotp,
  INVITATIONS,
  invite,
  lookupInvitation,
  newOperator,
  nextStep,
  notTheCode,
  PLAIN_COOKIE,
  passwordStep,
  SESSION,
  SESSION_LOGOUT,
  SESSION_PASSWORD,
  SESSION_SECOND_FACTOR,
  sessionFrom,
  signInOperator,
  startEnrolment,
  theSetCookie,
  totp,
  totpWithKey,
} from './operator-kit.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('the test suite’s own TOTP authenticator (RFC 6238 on node:crypto)', () => {
  it('computes the RFC 6238 appendix B vector: SHA-1, T = 59 s → 94287082 (8 digits), 287082 (6)', () => {
    const key = Buffer.from('12345678901234567890', 'ascii');
    assert.equal(hotp(key, 1, 8), '94287082');
    assert.equal(totpWithKey(key, 59_000, 8), '94287082');
    assert.equal(totpWithKey(key, 59_000), '287082');
    // The same key as an authenticator app gets it: base32 in an otpauth:// URL.
    assert.equal(totp('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', 59_000), '287082');
    assert.equal(totp('gezdgnbvgy3tqojqgezdgnbvgy3tqojq', 59_000), '287082');
    // The other SHA-1 vectors of the appendix.
    assert.equal(totpWithKey(key, 1_111_111_109_000, 8), '07081804');
    assert.equal(totpWithKey(key, 1_234_567_890_000, 8), '89005924');
    assert.equal(totpWithKey(key, 20_000_000_000_000, 8), '65353130');
    assert.deepEqual(base32Decode('MZXW6YTBOI======'), Buffer.from('foobar'));
  });
});

for (const dialect of DIALECTS) {
  describe(`operator sign-in and console sessions [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);

    describe('sign-in', () => {
      it('answers an unknown e-mail and a wrong password with the same 401 INVALID_CREDENTIALS', async () => {
        const { t } = suite;
        const operator = await newOperator(t, 'reviewer');
        const unknown = await t.api.post(SESSION_PASSWORD, {
          email: uniqueEmail('nobody'),
          password: operator.password,
        });
        const wrong = await t.api.post(SESSION_PASSWORD, {
          email: operator.email,
          password: `${operator.password}x`,
        });
        assertError(unknown, 401, 'INVALID_CREDENTIALS', { what: 'unknown e-mail' });
        assertError(wrong, 401, 'INVALID_CREDENTIALS', { what: 'wrong password' });
        assert.deepEqual(unknown.body, wrong.body, 'nothing tells the two apart');
        assert.equal(unknown.headers.get('set-cookie'), null);
        assert.equal(wrong.headers.get('set-cookie'), null);
        // The password is taken as sent: not trimmed.
        const padded = await t.api.post(SESSION_PASSWORD, {
          email: operator.email,
          password: ` ${operator.password} `,
        });
        assertError(padded, 401, 'INVALID_CREDENTIALS', { what: 'padded password' });
      });

      it('answers the right password with a 5-minute challenge and no cookie yet', async () => {
        const { t } = suite;
        const operator = await newOperator(t, 'reviewer');
        const response = await t.api.post(SESSION_PASSWORD, {
          email: operator.email.toUpperCase(),
          password: operator.password,
        });
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.status, 'success');
        assert.equal(typeof response.body.data.challenge, 'string');
        assert.ok(response.body.data.challenge.length >= 32);
        assert.equal(response.body.data.expires_in, 300);
        assert.equal(response.headers.get('set-cookie'), null, 'no session before the second factor');
      });

      it('signs in with the authenticator code: 200 with the operator, csrf token and the session cookie', async () => {
        const { t } = suite;
        const operator = await newOperator(t, 'admin');
        nextStep(t);
        const challenge = await passwordStep(t, operator);
        const signedInAt = t.clock.now();
        const response = await t.api.post(SESSION_SECOND_FACTOR, {
          challenge,
          code: totp(operator.secret, signedInAt),
        });
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body.data.operator, {
          id: operator.id,
          email: operator.email,
          name: operator.name,
          role: 'admin',
        });
        assert.equal(response.body.data.idle_timeout_seconds, 1800);
        const expiresAt = Date.parse(response.body.data.expires_at);
        assert.ok(Math.abs(expiresAt - (signedInAt + 8 * HOUR)) < 5000, response.body.data.expires_at);

        const cookie = theSetCookie(response);
        assert.equal(cookie.name, PLAIN_COOKIE);
        assert.equal(cookie.attributes['httponly'], true);
        assert.equal(cookie.attributes['samesite'], 'Strict');
        assert.equal(cookie.attributes['path'], '/');
        assert.equal(cookie.attributes['secure'], undefined, 'plain http in NODE_ENV=test');
        assert.equal(cookie.attributes['domain'], undefined, 'host-only');
        assert.equal(cookie.attributes['max-age'], String(8 * 60 * 60));

        const session = sessionFrom(t, response);
        assert.notEqual(session.token, operator.session.token, 'a new session');
        assert.notEqual(session.csrf, operator.session.csrf, 'an anti-forgery token per session');
        const current = await consoleGet(t, session, SESSION);
        assert.equal(current.status, 200, current.text);
        assert.equal(current.body.data.operator.id, operator.id);
        // The challenge was used up.
        assertError(
          await t.api.post(SESSION_SECOND_FACTOR, { challenge, code: totp(operator.secret, t.clock.now()) }),
          422,
          'SIGN_IN_EXPIRED',
        );
      });

      it('never accepts a TOTP code twice, nor the previous step’s code; the next step’s is fresh', async () => {
        const { t } = suite;
        nextStep(t);
        const operator = await newOperator(t, 'reviewer');
        // The code that confirmed the set-up is used as well.
        const setUpCode = totp(operator.secret, t.clock.now());
        const afterSetUp = await t.api.post(SESSION_SECOND_FACTOR, {
          challenge: await passwordStep(t, operator),
          code: setUpCode,
        });
        assertError(afterSetUp, 422, 'OTP_INVALID', { what: 'the set-up code' });
        assert.match(afterSetUp.body.message, /already used/i);

        nextStep(t);
        const now = t.clock.now();
        const code = totp(operator.secret, now);
        const first = await t.api.post(SESSION_SECOND_FACTOR, {
          challenge: await passwordStep(t, operator),
          code,
        });
        assert.equal(first.status, 200, first.text);

        const challenge = await passwordStep(t, operator);
        for (const [what, used] of [
          ['the same code', code],
          ['the previous step’s code', totp(operator.secret, now - 30_000)],
        ] as const) {
          const again = await t.api.post(SESSION_SECOND_FACTOR, { challenge, code: used });
          assertError(again, 422, 'OTP_INVALID', { what });
          assert.match(again.body.message, /already used/i, what);
          assert.equal(again.headers.get('set-cookie'), null, what);
        }
        // One step either way is accepted, once.
        const nextCode = totp(operator.secret, now + 30_000);
        const next = await t.api.post(SESSION_SECOND_FACTOR, { challenge, code: nextCode });
        assert.equal(next.status, 200, next.text);
        const reused = await t.api.post(SESSION_SECOND_FACTOR, {
          challenge: await passwordStep(t, operator),
          code: nextCode,
        });
        assertError(reused, 422, 'OTP_INVALID');
        assert.match(reused.body.message, /already used/i);

        const reasons = (
          await auditEvents(t, { action: 'operator.second_factor_failed', actor_id: operator.id })
        ).map((event) => event.metadata?.['reason']);
        assert.deepEqual(reasons, ['code_reused', 'code_reused', 'code_reused', 'code_reused']);
      });

      it('accepts a code raced on two sign-ins once: TOTP and recovery code alike', async () => {
        const { t } = suite;
        const operator = await newOperator(t, 'reviewer');
        for (const kind of ['totp', 'recovery code'] as const) {
          nextStep(t);
          const challenges = await Promise.all([1, 2, 3].map(() => passwordStep(t, operator)));
          const code = kind === 'totp' ? totp(operator.secret, t.clock.now()) : operator.recoveryCodes[3]!;
          const answers = await Promise.all(
            challenges.map((challenge) => t.api.post(SESSION_SECOND_FACTOR, { challenge, code })),
          );
          const statuses = answers.map((answer) => answer.status).sort();
          assert.deepEqual(
            statuses,
            [200, 422, 422],
            `${kind}: ${answers.map((answer) => answer.text).join('\n')}`,
          );
          for (const answer of answers.filter((candidate) => candidate.status !== 200)) {
            assertError(answer, 422, 'OTP_INVALID', { what: kind });
          }
        }
      });

      it('takes a recovery code once (as typed: case and separators do not matter)', async () => {
        const { t } = suite;
        const operator = await newOperator(t, 'reviewer');
        const [firstCode, secondCode] = operator.recoveryCodes as [string, string];
        const used = await t.api.post(SESSION_SECOND_FACTOR, {
          challenge: await passwordStep(t, operator),
          code: firstCode,
        });
        assert.equal(used.status, 200, used.text);
        assert.equal(used.body.data.operator.id, operator.id);
        const session = sessionFrom(t, used);
        assert.equal((await consoleGet(t, session, SESSION)).status, 200);

        const again = await t.api.post(SESSION_SECOND_FACTOR, {
          challenge: await passwordStep(t, operator),
          code: firstCode,
        });
        assertError(again, 422, 'OTP_INVALID');
        assert.equal(again.headers.get('set-cookie'), null);

        const typed = secondCode.toUpperCase().replace(/-/g, ' ');
        const loose = await t.api.post(SESSION_SECOND_FACTOR, {
          challenge: await passwordStep(t, operator),
          code: typed,
        });
        assert.equal(loose.status, 200, `${typed}: ${loose.text}`);
        assertError(
          await t.api.post(SESSION_SECOND_FACTOR, {
            challenge: await passwordStep(t, operator),
            code: secondCode,
          }),
          422,
          'OTP_INVALID',
        );
        const methods = (await auditEvents(t, { action: 'operator.signed_in', actor_id: operator.id })).map(
          (event) => event.metadata?.['method'],
        );
        assert.deepEqual(methods, ['recovery_code', 'recovery_code']);
      });

      it('ends the sign-in after five wrong codes: 429 OTP_ATTEMPTS_EXCEEDED even for the right code', async () => {
        const { t } = suite;
        const operator = await newOperator(t, 'reviewer');
        nextStep(t);
        const challenge = await passwordStep(t, operator);
        const now = t.clock.now();
        for (let attempt = 1; attempt <= 5; attempt++) {
          const wrong = await t.api.post(SESSION_SECOND_FACTOR, {
            challenge,
            code: notTheCode(operator.secret, now),
          });
          assertError(wrong, 422, 'OTP_INVALID', { what: `wrong code ${attempt}` });
        }
        const right = totp(operator.secret, now);
        const dead = await t.api.post(SESSION_SECOND_FACTOR, { challenge, code: right });
        assertError(dead, 429, 'OTP_ATTEMPTS_EXCEEDED');
        assert.equal(dead.headers.get('set-cookie'), null);
        assertError(
          await t.api.post(SESSION_SECOND_FACTOR, { challenge, code: operator.recoveryCodes[0] }),
          429,
          'OTP_ATTEMPTS_EXCEEDED',
          { what: 'a recovery code on the dead challenge' },
        );
        // The dead challenge consumed neither code: a new sign-in takes them.
        const fresh = await t.api.post(SESSION_SECOND_FACTOR, {
          challenge: await passwordStep(t, operator),
          code: right,
        });
        assert.equal(fresh.status, 200, fresh.text);
        const failures = await auditEvents(t, {
          action: 'operator.second_factor_failed',
          actor_id: operator.id,
        });
        assert.equal(failures.length, 5);
      });

      it('answers 422 SIGN_IN_EXPIRED to a code sent more than 5 minutes after the password', async () => {
        const { t } = suite;
        const operator = await newOperator(t, 'reviewer');
        nextStep(t);
        const early = await passwordStep(t, operator);
        const late = await passwordStep(t, operator);
        t.clock.advance(4 * MINUTE + 30_000);
        const inTime = await t.api.post(SESSION_SECOND_FACTOR, {
          challenge: early,
          code: totp(operator.secret, t.clock.now()),
        });
        assert.equal(inTime.status, 200, inTime.text);
        t.clock.advance(MINUTE + 30_000);
        const expired = await t.api.post(SESSION_SECOND_FACTOR, {
          challenge: late,
          code: totp(operator.secret, t.clock.now()),
        });
        assertError(expired, 422, 'SIGN_IN_EXPIRED');
        assert.equal(expired.headers.get('set-cookie'), null);
        assertError(
          await t.api.post(SESSION_SECOND_FACTOR, { challenge: 'no-such-challenge', code: '123456' }),
          422,
          'SIGN_IN_EXPIRED',
          { what: 'an unknown challenge' },
        );
      });

      it('limits password attempts to 10 per address in 15 minutes: the 11th gets 429 RATE_LIMITED with Retry-After', async () => {
        const { t } = suite;
        const operator = await newOperator(t, 'reviewer');
        const other = await newOperator(t, 'reviewer');
        for (let attempt = 1; attempt <= 10; attempt++) {
          const response = await t.api.post(SESSION_PASSWORD, {
            email: operator.email,
            password: `wrong-password-${attempt}`,
          });
          assertError(response, 401, 'INVALID_CREDENTIALS', { what: `attempt ${attempt}` });
        }
        const limited = await t.api.post(SESSION_PASSWORD, {
          email: operator.email,
          password: operator.password,
        });
        assertError(limited, 429, 'RATE_LIMITED', { what: 'the right password, 11th attempt' });
        const seconds = retryAfterSeconds(limited);
        assert.ok(seconds <= 15 * 60, `Retry-After ${seconds}`);
        // Per address: another operator signs in meanwhile.
        assert.equal((await signInOperator(t, other)).cookieName, PLAIN_COOKIE);

        t.clock.advance(15 * MINUTE + 1000);
        assert.equal(typeof (await passwordStep(t, operator)), 'string', 'a new window');
      });

      it('audits failed passwords, failed codes and sign-ins, naming the operator and never the secrets', async () => {
        const { t } = suite;
        const operator = await newOperator(t, 'reviewer');
        const wrongPassword = `${operator.password}-wrong`;
        assertError(
          await t.api.post(SESSION_PASSWORD, { email: operator.email, password: wrongPassword }),
          401,
          'INVALID_CREDENTIALS',
        );
        nextStep(t);
        const challenge = await passwordStep(t, operator);
        const badCode = notTheCode(operator.secret, t.clock.now());
        assertError(
          await t.api.post(SESSION_SECOND_FACTOR, { challenge, code: badCode }),
          422,
          'OTP_INVALID',
        );
        const code = totp(operator.secret, t.clock.now());
        const signedIn = await t.api.post(SESSION_SECOND_FACTOR, { challenge, code });
        assert.equal(signedIn.status, 200, signedIn.text);

        const failed = (await auditEvents(t, { action: 'operator.sign_in_failed' })).filter(
          (event) => event.target?.id === operator.id,
        );
        assert.equal(failed.length, 1);
        assert.deepEqual(failed[0]?.target, { type: 'operator', id: operator.id });
        assert.equal(failed[0]?.metadata?.['email'], operator.email);
        assert.equal(failed[0]?.ip, '127.0.0.1');
        assert.equal(typeof failed[0]?.request_id, 'string');

        const named = { type: 'operator', id: operator.id, name: operator.name, email: operator.email };
        const codeFailed = await auditEvents(t, {
          action: 'operator.second_factor_failed',
          actor_id: operator.id,
        });
        assert.equal(codeFailed.length, 1);
        assert.deepEqual(codeFailed[0]?.actor, named);
        assert.deepEqual(codeFailed[0]?.target, { type: 'operator', id: operator.id });

        const signIns = await auditEvents(t, { action: 'operator.signed_in', actor_id: operator.id });
        assert.equal(signIns.length, 1);
        assert.deepEqual(signIns[0]?.actor, named);
        assert.equal(signIns[0]?.metadata?.['method'], 'totp');

        const everything =
          JSON.stringify(await auditEvents(t, { actor_id: operator.id })) + JSON.stringify(failed);
        for (const secret of [operator.password, wrongPassword, badCode, code, operator.secret, challenge]) {
          assert.ok(!everything.includes(secret), `the audit trail must not hold ${secret}`);
        }
      });

      it('refuses a sign-in step sent from another origin with 403 CSRF_REJECTED', async () => {
        const { t } = suite;
        const operator = await newOperator(t, 'reviewer');
        const password = await t.api.post(
          SESSION_PASSWORD,
          { email: operator.email, password: operator.password },
          { headers: { origin: 'https://evil.example' } },
        );
        assertError(password, 403, 'CSRF_REJECTED');
        nextStep(t);
        const challenge = await passwordStep(t, operator);
        const code = totp(operator.secret, t.clock.now());
        const foreign = await t.api.post(
          SESSION_SECOND_FACTOR,
          { challenge, code },
          { headers: { origin: 'https://evil.example' } },
        );
        assertError(foreign, 403, 'CSRF_REJECTED');
        assert.equal(foreign.headers.get('set-cookie'), null);
        // The console page itself sends its own origin.
        const own = await t.api.post(
          SESSION_SECOND_FACTOR,
          { challenge, code },
          { headers: { origin: t.url } },
        );
        assert.equal(own.status, 200, own.text);
      });
    });

    describe('sessions', () => {
      it('GET /admin/session answers the operator and the csrf token of the cookie’s session', async () => {
        const { t } = suite;
        const operator = await newOperator(t, 'reviewer');
        const session = await signInOperator(t, operator);
        const response = await consoleGet(t, session, SESSION);
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body.data.operator, {
          id: operator.id,
          email: operator.email,
          name: operator.name,
          role: 'reviewer',
        });
        assert.equal(response.body.data.csrf_token, session.csrf);
        assert.equal(response.body.data.idle_timeout_seconds, 1800);
        assert.equal(response.headers.get('set-cookie'), null);
        // Each session its own token.
        const other = await consoleGet(t, operator.session, SESSION);
        assert.equal(other.body.data.csrf_token, operator.session.csrf);
        assert.notEqual(other.body.data.csrf_token, session.csrf);

        assertError(await t.api.get(SESSION), 401, 'UNAUTHENTICATED', { what: 'no cookie' });
        assertError(
          await t.api.get(SESSION, { headers: { cookie: `${PLAIN_COOKIE}=${'A'.repeat(43)}` } }),
          401,
          'UNAUTHENTICATED',
          { what: 'an unknown session' },
        );
      });

      it('ends a session after 30 minutes without a request: 401 TOKEN_EXPIRED', async () => {
        const { t } = suite;
        const operator = await newOperator(t, 'reviewer');
        const session = await signInOperator(t, operator);
        t.clock.advance(29 * MINUTE);
        assert.equal((await consoleGet(t, session, SESSION)).status, 200, 'active 29 minutes after sign-in');
        t.clock.advance(29 * MINUTE);
        assert.equal(
          (await consoleGet(t, session, SESSION)).status,
          200,
          'each request moves the idle clock',
        );
        t.clock.advance(31 * MINUTE);
        assertError(await consoleGet(t, session, SESSION), 401, 'TOKEN_EXPIRED');
        assertError(await consoleGet(t, session, ADMIN_PARTNERS), 401, 'TOKEN_EXPIRED');
        // and stays ended, even right away
        assertError(await consoleGet(t, session, SESSION), 401, 'TOKEN_EXPIRED');
      });

      it('keeps a session alive with a request every 20 minutes, but ends it 8 hours after sign-in', async () => {
        const { t } = suite;
        const operator = await newOperator(t, 'reviewer');
        const session = await signInOperator(t, operator);
        for (let elapsed = 20; elapsed <= 460; elapsed += 20) {
          t.clock.advance(20 * MINUTE);
          const response = await consoleGet(t, session, ADMIN_PARTNERS);
          assert.equal(response.status, 200, `${elapsed} minutes after sign-in: ${response.text}`);
        }
        t.clock.advance(19 * MINUTE);
        assert.equal((await consoleGet(t, session, SESSION)).status, 200, '7 h 59 min after sign-in');
        t.clock.advance(MINUTE);
        assertError(await consoleGet(t, session, SESSION), 401, 'TOKEN_EXPIRED', { what: '8 hours' });
        assertError(await consoleGet(t, session, ADMIN_PARTNERS), 401, 'TOKEN_EXPIRED');
        // A new sign-in opens a new 8 hours.
        const again = await signInOperator(t, operator);
        assert.equal((await consoleGet(t, again, SESSION)).status, 200);
      });

      it('signs out at once: the cookie is cleared and the session answers 401; other sessions stay', async () => {
        const { t } = suite;
        const operator = await newOperator(t, 'reviewer');
        const session = await signInOperator(t, operator);
        const refused = await consolePost(t, session, SESSION_LOGOUT, undefined, { 'x-csrf-token': 'nope' });
        assertError(refused, 403, 'CSRF_REJECTED', { what: 'sign-out without the anti-forgery token' });
        assert.equal((await consoleGet(t, session, SESSION)).status, 200, 'still signed in');

        const out = await consolePost(t, session, SESSION_LOGOUT);
        assert.equal(out.status, 200, out.text);
        assert.equal(out.body.status, 'success');
        const cleared = theSetCookie(out);
        assert.equal(cleared.name, PLAIN_COOKIE);
        assert.equal(cleared.value, '');
        assert.ok(
          cleared.attributes['max-age'] === '0' ||
            Date.parse(String(cleared.attributes['expires'])) <= Date.now(),
          `a cookie that expires now: ${JSON.stringify(cleared)}`,
        );
        assert.equal(cleared.attributes['path'], '/');

        assertError(await consoleGet(t, session, SESSION), 401, 'UNAUTHENTICATED');
        assertError(await consoleGet(t, session, ADMIN_PARTNERS), 401, 'UNAUTHENTICATED');
        assertError(await consolePost(t, session, SESSION_LOGOUT), 401, 'UNAUTHENTICATED');
        assert.equal((await consoleGet(t, operator.session, SESSION)).status, 200, 'the other session');

        const audited = await auditEvents(t, { action: 'operator.signed_out', actor_id: operator.id });
        assert.equal(audited.length, 1);
        assert.deepEqual(audited[0]?.actor, {
          type: 'operator',
          id: operator.id,
          name: operator.name,
          email: operator.email,
        });
      });

      it('refuses the console cookie on partner endpoints and a partner token on /admin', async () => {
        const { t, sink } = suite;
        const operator = await newOperator(t, 'admin');
        const partner = await newPartner({ t, sink }, 'signed-in');
        const cookie = cookieOf(operator.session);
        assertError(await t.api.get(BUSINESS_INFO, { headers: { cookie } }), 401, 'UNAUTHENTICATED');
        assertError(
          await t.api.post(
            API_KEYS,
            { name: 'from the console', environment: 'sandbox' },
            { headers: { cookie, 'x-csrf-token': operator.session.csrf, origin: t.url } },
          ),
          401,
          'UNAUTHENTICATED',
        );
        for (const path of [ADMIN_PARTNERS, SESSION, INVITATIONS]) {
          assertError(await t.api.get(path, { token: partner.token }), 401, 'UNAUTHENTICATED', {
            what: path,
          });
          assertError(
            await t.api.get(path, { headers: { cookie: `${PLAIN_COOKIE}=${partner.token}` } }),
            401,
            'UNAUTHENTICATED',
            { what: `${path} with the partner token as the console cookie` },
          );
        }
        assert.equal((await t.api.get(BUSINESS_INFO, { token: partner.token })).status, 200);
        assert.equal((await consoleGet(t, operator.session, ADMIN_PARTNERS)).status, 200);
      });
    });

    describe('anti-forgery (CSRF)', () => {
      it('refuses a cookie-authenticated decision without the X-CSRF-Token and same Origin (403 CSRF_REJECTED); nothing changes', async () => {
        const { t, sink } = suite;
        const admin = await newOperator(t, 'admin');
        const otherSession = await signInOperator(t, admin);
        const partner = await newPartner({ t, sink }, 'submitted');
        const document = await currentAdminDocument(t, partner.companyId, 'memart');
        const approve = adminDocumentUrl(partner.companyId, document.id, 'approve');
        const session = admin.session;
        const cookie = cookieOf(session);
        const attempts: Array<[string, Record<string, string>]> = [
          ['the cookie alone', { cookie }],
          ['same Origin, no token', { cookie, origin: t.url }],
          ['a wrong token', { cookie, origin: t.url, 'x-csrf-token': 'x'.repeat(session.csrf.length) }],
          ['an empty token', { cookie, origin: t.url, 'x-csrf-token': '' }],
          ['another session’s token', { cookie, origin: t.url, 'x-csrf-token': otherSession.csrf }],
          ['a foreign Origin', { cookie, origin: 'https://evil.example', 'x-csrf-token': session.csrf }],
          ['no Origin', { cookie, 'x-csrf-token': session.csrf }],
          ['Origin null', { cookie, origin: 'null', 'x-csrf-token': session.csrf }],
          ['another port', { cookie, origin: 'http://127.0.0.1:1', 'x-csrf-token': session.csrf }],
          [
            'https for http',
            { cookie, origin: t.url.replace('http:', 'https:'), 'x-csrf-token': session.csrf },
          ],
        ];
        for (const [what, headers] of attempts) {
          assertError(await t.api.post(approve, undefined, { headers }), 403, 'CSRF_REJECTED', { what });
          assertError(
            await t.api.post(INVITATIONS, { email: uniqueEmail('forged'), role: 'admin' }, { headers }),
            403,
            'CSRF_REJECTED',
            { what: `invite: ${what}` },
          );
        }
        const record = await partnerRecord(t, partner.companyId);
        assert.equal(
          record.documents.find((candidate: { id: string }) => candidate.id === document.id).status,
          'pending_review',
          'nothing was decided',
        );
        const open = await adminGet(t, `${INVITATIONS}?limit=100`);
        assert.ok(
          !open.body.data.items.some((item: { email: string }) => item.email.startsWith('forged-')),
          'nobody was invited',
        );
        assert.equal(
          (await auditEvents(t, { actor_id: admin.id, action: 'document.approved' })).length,
          0,
          'no decision audited',
        );

        const approved = await consolePost(t, session, approve);
        assert.equal(approved.status, 200, approved.text);
        assert.equal(approved.body.data.status, 'approved');
        const invited = await consolePost(t, session, INVITATIONS, {
          email: uniqueEmail('real'),
          role: 'reviewer',
        });
        assert.equal(invited.status, 201, invited.text);
      });

      it('needs no token for a read, and none for ADMIN_API_KEY requests (automation)', async () => {
        const { t, sink } = suite;
        const admin = await newOperator(t, 'admin');
        const cookie = cookieOf(admin.session);
        for (const headers of [{ cookie }, { cookie, origin: 'https://evil.example' }] as Array<
          Record<string, string>
        >) {
          for (const path of [ADMIN_PARTNERS, SESSION, `${INVITATIONS}?limit=5`]) {
            const read = await t.api.get(path, { headers });
            assert.equal(read.status, 200, `${path}: ${read.text}`);
          }
        }
        const partner = await newPartner({ t, sink }, 'submitted');
        const document = await currentAdminDocument(t, partner.companyId, 'memart');
        const approved = await adminPost(
          t,
          adminDocumentUrl(partner.companyId, document.id, 'approve'),
          undefined,
          { origin: 'https://evil.example' },
        );
        assert.equal(approved.status, 200, approved.text);
        const invited = await t.api.post(
          INVITATIONS,
          { email: uniqueEmail('automation'), role: 'reviewer' },
          { headers: { ...adminHeaders } },
        );
        assert.equal(invited.status, 201, invited.text);
        // A bearer takes precedence over a cookie that may come along: the key decides, no token needed.
        const both = await t.api.post(
          INVITATIONS,
          { email: uniqueEmail('automation'), role: 'reviewer' },
          { headers: { ...adminHeaders, cookie } },
        );
        assert.equal(both.status, 201, both.text);
      });
    });
  });

  describe(`console cookie outside local development [${dialect.name}]`, { skip: dialect.skip }, () => {
    // What production requires: SMTP_URL (useApp's sink), DATA_ENCRYPTION_KEY and an https PUBLIC_URL;
    // no private webhooks.
    const suite = useApp(dialect.name, {
      env: {
        NODE_ENV: 'production',
        DATA_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        WEBHOOK_ALLOW_PRIVATE: 'false',
        PUBLIC_URL: 'https://console.bank.example',
      },
    });

    const assertHostCookie = (session: ConsoleSession, what: string) =>
      assert.equal(session.cookieName, HOST_COOKIE, what);

    it('sets __Host-baas_console, Secure, HttpOnly, SameSite=Strict, Path=/ and no Domain at set-up and sign-in', async () => {
      const { t } = suite;
      const email = uniqueEmail('prod');
      const token = await invite(t, email, 'admin');
      const password = 'Harbour-Lantern-Okra-77';
      const secret = await startEnrolment(t, token, {
        name: 'Prod Admin',
        password,
        password_confirmation: password,
      });
      const accepted = await accept(t, token, secret);
      assert.equal(accepted.status, 201, accepted.text);
      const responses = [['set-up', accepted]] as const;
      nextStep(t);
      const signIn = await t.api.post(SESSION_SECOND_FACTOR, {
        challenge: await passwordStep(t, { email, password }),
        code: totp(secret, t.clock.now()),
      });
      assert.equal(signIn.status, 200, signIn.text);
      for (const [what, response] of [...responses, ['sign-in', signIn] as const]) {
        const cookie = theSetCookie(response);
        assert.equal(cookie.name, HOST_COOKIE, what);
        assert.equal(cookie.attributes['secure'], true, what);
        assert.equal(cookie.attributes['httponly'], true, what);
        assert.equal(cookie.attributes['samesite'], 'Strict', what);
        assert.equal(cookie.attributes['path'], '/', what);
        assert.equal(cookie.attributes['domain'], undefined, what);
      }
      const session = sessionFrom(t, signIn);
      assertHostCookie(session, 'sign-in');
      assert.equal((await consoleGet(t, session, SESSION)).status, 200);
      // The unprefixed name (which any subdomain could set) is not read.
      assertError(
        await t.api.get(SESSION, { headers: { cookie: `${PLAIN_COOKIE}=${session.token}` } }),
        401,
        'UNAUTHENTICATED',
      );
      const out = await consolePost(t, session, SESSION_LOGOUT);
      assert.equal(out.status, 200, out.text);
      const cleared = theSetCookie(out);
      assert.equal(cleared.name, HOST_COOKIE);
      assert.equal(cleared.value, '');
      assert.equal(cleared.attributes['secure'], true, 'a __Host- cookie is only cleared with Secure');
      assert.equal(cleared.attributes['path'], '/');
      assertError(await consoleGet(t, session, SESSION), 401, 'UNAUTHENTICATED');
      // The set-up link is used up.
      assertError(await lookupInvitation(t, token), 404, 'NOT_FOUND');
    });
  });
}
