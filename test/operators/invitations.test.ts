import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adminHeaders, adminPost } from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError, ISO_INSTANT, UUID } from '../support/assertions.js';
import { uniqueEmail } from '../support/factories.js';
import { listAll } from '../support/http.js';
import {
  accept,
  acceptCode,
  auditEvents,
  consoleGet,
  enrol,
  INVITATIONS,
  invite,
  linkToken,
  lookupInvitation,
  newOperator,
  nextStep,
  notTheCode,
  operatorsList,
  PLAIN_COOKIE,
  PUBLIC_URL,
  SESSION,
  STRONG,
  sessionFrom,
  startEnrolment,
  theSetCookie,
  totp,
} from './operator-kit.js';

const HOUR = 60 * 60 * 1000;

for (const dialect of DIALECTS) {
  describe(`operator set-up from an invitation link [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name, { env: { PUBLIC_URL } });

    it('invites with ADMIN_API_KEY: 201 with a one-time link under PUBLIC_URL; the link tells email, role and purpose', async () => {
      const { t } = suite;
      const email = uniqueEmail('ngozi');
      const before = t.clock.now();
      const response = await adminPost(t, INVITATIONS, {
        email: `  ${email.toUpperCase()} `,
        role: 'reviewer',
      });
      assert.equal(response.status, 201, response.text);
      const data = response.body.data;
      assert.match(data.id, UUID);
      assert.equal(data.email, email);
      assert.equal(data.role, 'reviewer');
      assert.equal(data.purpose, 'invite');
      assert.match(data.expires_at, ISO_INSTANT);
      assert.ok(Math.abs(Date.parse(data.expires_at) - (before + 72 * HOUR)) < 5000, data.expires_at);
      assert.ok(String(data.url).startsWith(`${PUBLIC_URL}/console/setup#token=`), data.url);
      const token = linkToken(data.url);

      const opened = await lookupInvitation(t, token);
      assert.equal(opened.status, 200, opened.text);
      assert.deepEqual(opened.body.data, {
        email,
        role: 'reviewer',
        purpose: 'invite',
        expires_at: data.expires_at,
      });
      assertError(await lookupInvitation(t, 'A'.repeat(43)), 404, 'NOT_FOUND', { what: 'unknown link' });
      assertError(await adminPost(t, INVITATIONS, { email, role: 'owner' }), 422, 'VALIDATION_FAILED', {
        fields: ['role'],
      });
      assertError(
        await adminPost(t, INVITATIONS, { email: 'nope', role: 'admin' }),
        422,
        'VALIDATION_FAILED',
        {
          fields: ['email'],
        },
      );
      assertError(await t.api.post(INVITATIONS, { email, role: 'admin' }), 401, 'UNAUTHENTICATED');
    });

    it('refuses a missing name and a weak, short or mismatched password with 422 naming the field', async () => {
      const { t } = suite;
      const email = uniqueEmail('weak');
      const token = await invite(t, email, 'reviewer');
      const cases: Array<[string, Record<string, unknown>, string[]]> = [
        ['no name', { password: STRONG, password_confirmation: STRONG }, ['name']],
        ['a blank name', { name: '   ', password: STRONG, password_confirmation: STRONG }, ['name']],
        ['no password', { name: 'Ada' }, ['password']],
        [
          'a common password',
          { name: 'Ada', password: 'password', password_confirmation: 'password' },
          ['password'],
        ],
        [
          'a common password',
          { name: 'Ada', password: '12345678', password_confirmation: '12345678' },
          ['password'],
        ],
        [
          'a short password',
          { name: 'Ada', password: 'Xk7#q', password_confirmation: 'Xk7#q' },
          ['password'],
        ],
        [
          'a 7-character password',
          { name: 'Ada', password: 'Zq8#vL2', password_confirmation: 'Zq8#vL2' },
          ['password'],
        ],
        [
          'the e-mail as password',
          { name: 'Ada', password: email, password_confirmation: email },
          ['password'],
        ],
        [
          'a mismatched confirmation',
          { name: 'Ada', password: STRONG, password_confirmation: `${STRONG}!` },
          ['password_confirmation'],
        ],
        ['no confirmation', { name: 'Ada', password: STRONG }, ['password_confirmation']],
        ['nothing', {}, ['name', 'password']],
        [
          'a name too long',
          { name: 'x'.repeat(101), password: STRONG, password_confirmation: STRONG },
          ['name'],
        ],
      ];
      for (const [what, body, fields] of cases) {
        const response = await enrol(t, token, body);
        assertError(response, 422, 'VALIDATION_FAILED', { fields, what });
      }
      // Nothing was kept: the link still works and nobody is an operator yet.
      assert.equal((await lookupInvitation(t, token)).status, 200);
      assertError(await acceptCode(t, token, '123456'), 409, 'SETUP_NOT_STARTED', {
        what: 'confirming before the set-up started',
      });
      assert.ok(!(await operatorsList(t)).some((item) => item.email === email));
      // An 8-character password is long enough.
      const secret = await startEnrolment(t, token, {
        name: 'Ada',
        password: 'Zq8#vL2m',
        password_confirmation: 'Zq8#vL2m',
      });
      assert.ok(secret.length > 0);
    });

    it('starts enrolment with a base32 secret and an otpauth URL (issuer, account, SHA1, 6 digits, 30 s)', async () => {
      const { t } = suite;
      const email = uniqueEmail('enrol');
      const token = await invite(t, email, 'admin');
      const response = await enrol(t, token, {
        name: '  Ngozi Okafor ',
        password: STRONG,
        password_confirmation: STRONG,
      });
      assert.equal(response.status, 200, response.text);
      const { secret, otpauth_url: otpauthUrl } = response.body.data as {
        secret: string;
        otpauth_url: string;
      };
      assert.match(secret, /^[A-Z2-7]+=*$/, 'RFC 4648 base32');
      assert.ok(secret.replace(/=+$/, '').length >= 32, 'at least 160 bits (RFC 4226 recommends 160)');

      const url = new URL(otpauthUrl);
      assert.equal(url.protocol, 'otpauth:');
      assert.equal(url.host, 'totp');
      const label = decodeURIComponent(url.pathname.slice(1));
      assert.equal(label, `BaaS Console:${email}`);
      assert.equal(url.searchParams.get('issuer'), 'BaaS Console');
      assert.equal(url.searchParams.get('secret'), secret);
      assert.equal(url.searchParams.get('algorithm'), 'SHA1');
      assert.equal(url.searchParams.get('digits'), '6');
      assert.equal(url.searchParams.get('period'), '30');

      // Started again, it draws a new secret: only the latest one confirms.
      const again = await startEnrolment(t, token, {
        name: 'Ngozi Okafor',
        password: STRONG,
        password_confirmation: STRONG,
      });
      assert.notEqual(again, secret);
      const oldCode = totp(secret, t.clock.now());
      if (![-1, 0, 1].some((step) => totp(again, t.clock.now() + step * 30_000) === oldCode)) {
        assertError(await acceptCode(t, token, oldCode), 422, 'OTP_INVALID', {
          what: 'the code of the replaced secret',
        });
      }
      const accepted = await accept(t, token, again);
      assert.equal(accepted.status, 201, accepted.text);
      assert.equal(accepted.body.data.operator.name, 'Ngozi Okafor', 'trimmed');
    });

    it('refuses a wrong code with 422 OTP_INVALID and makes nobody an operator', async () => {
      const { t } = suite;
      const email = uniqueEmail('wrong-code');
      const token = await invite(t, email, 'reviewer');
      const secret = await startEnrolment(t, token, {
        name: 'Ada',
        password: STRONG,
        password_confirmation: STRONG,
      });
      const wrong = await acceptCode(t, token, notTheCode(secret, t.clock.now()));
      assertError(wrong, 422, 'OTP_INVALID');
      assert.equal(wrong.headers.get('set-cookie'), null);
      assertError(await acceptCode(t, token, '12345'), 422, 'VALIDATION_FAILED', {
        fields: ['code'],
      });
      assert.ok(!(await operatorsList(t)).some((item) => item.email === email));
      assert.equal((await lookupInvitation(t, token)).status, 200, 'the link still works');
      assert.equal((await accept(t, token, secret)).status, 201);
    });

    it('accepts the right code: 201, ten distinct recovery codes and a session cookie (HttpOnly, SameSite=Strict, Path=/, not Secure in test)', async () => {
      const { t } = suite;
      const email = uniqueEmail('accepted');
      const token = await invite(t, email, 'admin');
      const secret = await startEnrolment(t, token, {
        name: 'Ada Admin',
        password: STRONG,
        password_confirmation: STRONG,
      });
      const acceptedAt = t.clock.now();
      const response = await acceptCode(t, token, totp(secret, acceptedAt));
      assert.equal(response.status, 201, response.text);
      const data = response.body.data;
      assert.match(data.operator.id, UUID);
      assert.deepEqual(data.operator, { id: data.operator.id, email, name: 'Ada Admin', role: 'admin' });
      assert.equal(data.idle_timeout_seconds, 1800);
      assert.ok(Math.abs(Date.parse(data.expires_at) - (acceptedAt + 8 * HOUR)) < 5000);

      const codes = data.recovery_codes as string[];
      assert.equal(codes.length, 10);
      assert.equal(new Set(codes).size, 10, 'distinct');
      for (const code of codes) {
        assert.equal(typeof code, 'string');
        assert.ok(code.replace(/[\s-]/g, '').length >= 10, `long enough to resist guessing: ${code}`);
        assert.doesNotMatch(code, /^[0-9]{6}$/, 'not mistaken for an authenticator code');
      }

      const cookie = theSetCookie(response);
      assert.equal(cookie.name, PLAIN_COOKIE);
      assert.equal(cookie.attributes['httponly'], true);
      assert.equal(cookie.attributes['samesite'], 'Strict');
      assert.equal(cookie.attributes['path'], '/');
      assert.equal(cookie.attributes['secure'], undefined, 'NODE_ENV=test is plain http');
      assert.equal(cookie.attributes['domain'], undefined);
      const session = sessionFrom(t, response);
      const current = await consoleGet(t, session, SESSION);
      assert.equal(current.status, 200, current.text);
      assert.equal(current.body.data.operator.email, email);
      assert.equal(current.body.data.csrf_token, data.csrf_token);

      const listed = (await operatorsList(t)).find((item) => item.email === email);
      assert.equal(listed.status, 'active');
      assert.equal(listed.second_factor, 'enrolled');
      const created = await auditEvents(t, { action: 'operator.created', actor_id: data.operator.id });
      assert.equal(created.length, 1);
      assert.deepEqual(created[0]?.actor, {
        type: 'operator',
        id: data.operator.id,
        name: data.operator.name,
        email,
      });

      // The link is used up.
      assertError(await lookupInvitation(t, token), 404, 'NOT_FOUND');
      assertError(
        await enrol(t, token, {
          name: 'X',
          password: STRONG,
          password_confirmation: STRONG,
        }),
        404,
        'NOT_FOUND',
      );
      nextStep(t);
      assertError(await accept(t, token, secret), 404, 'NOT_FOUND');
      assert.equal((await operatorsList(t)).filter((item) => item.email === email).length, 1);
    });

    it('makes one operator when the same link is confirmed twice at once', async () => {
      const { t } = suite;
      const email = uniqueEmail('race');
      const token = await invite(t, email, 'reviewer');
      const secret = await startEnrolment(t, token, {
        name: 'Racer',
        password: STRONG,
        password_confirmation: STRONG,
      });
      const answers = await Promise.all([1, 2, 3].map(() => accept(t, token, secret)));
      const statuses = answers.map((answer) => answer.status).sort();
      assert.deepEqual(statuses, [201, 404, 404], answers.map((answer) => answer.text).join('\n'));
      for (const answer of answers.filter((candidate) => candidate.status !== 201)) {
        assertError(answer, 404, 'NOT_FOUND');
        assert.equal(answer.headers.get('set-cookie'), null);
      }
      assert.equal((await operatorsList(t)).filter((item) => item.email === email).length, 1);
    });

    it('answers 410 INVITATION_EXPIRED to a link 72 hours old (73 h later), at every step', async () => {
      const { t } = suite;
      const fresh = await invite(t, uniqueEmail('fresh'), 'reviewer');
      const email = uniqueEmail('late');
      const token = await invite(t, email, 'reviewer');
      const secret = await startEnrolment(t, token, {
        name: 'Late',
        password: STRONG,
        password_confirmation: STRONG,
      });
      t.clock.advance(71 * HOUR);
      assert.equal((await lookupInvitation(t, token)).status, 200, 'still valid after 71 h');
      t.clock.advance(2 * HOUR);
      assertError(await lookupInvitation(t, token), 410, 'INVITATION_EXPIRED');
      assertError(
        await enrol(t, token, {
          name: 'Late',
          password: STRONG,
          password_confirmation: STRONG,
        }),
        410,
        'INVITATION_EXPIRED',
      );
      assertError(await accept(t, token, secret), 410, 'INVITATION_EXPIRED');
      assertError(await lookupInvitation(t, fresh), 410, 'INVITATION_EXPIRED');
      assert.ok(!(await operatorsList(t)).some((item) => item.email === email));
      const open = await listAll(t, INVITATIONS, adminHeaders);
      assert.ok(!open.some((item) => item.email === email), 'an expired invitation is not open');
      // A new invitation of the address works.
      const renewed = await invite(t, email, 'reviewer');
      assert.equal((await lookupInvitation(t, renewed)).status, 200);
    });

    it('replaces an open invitation when the same address is invited again: the old link answers 404', async () => {
      const { t } = suite;
      const email = uniqueEmail('again');
      const first = await invite(t, email, 'admin');
      const firstSecret = await startEnrolment(t, first, {
        name: 'Ada',
        password: STRONG,
        password_confirmation: STRONG,
      });
      const second = await invite(t, email.toUpperCase(), 'reviewer');
      assert.notEqual(first, second);
      assertError(await lookupInvitation(t, first), 404, 'NOT_FOUND');
      assertError(await accept(t, first, firstSecret), 404, 'NOT_FOUND', { what: 'accepting the old link' });
      const open = (await listAll(t, INVITATIONS, adminHeaders)).filter((item) => item.email === email);
      assert.equal(open.length, 1);
      assert.equal(open[0].role, 'reviewer');
      const current = await lookupInvitation(t, second);
      assert.equal(current.body.data.role, 'reviewer');
      const secret = await startEnrolment(t, second, {
        name: 'Ada',
        password: STRONG,
        password_confirmation: STRONG,
      });
      const accepted = await accept(t, second, secret);
      assert.equal(accepted.status, 201, accepted.text);
      assert.equal(accepted.body.data.operator.role, 'reviewer');
    });

    it('refuses to invite an address that is an operator already (422 on email)', async () => {
      const { t } = suite;
      const operator = await newOperator(t, 'reviewer');
      for (const email of [operator.email, operator.email.toUpperCase()]) {
        assertError(await adminPost(t, INVITATIONS, { email, role: 'admin' }), 422, 'VALIDATION_FAILED', {
          fields: ['email'],
        });
      }
      const open = await listAll(t, INVITATIONS, adminHeaders);
      assert.ok(!open.some((item) => item.email === operator.email));
    });
  });
}
