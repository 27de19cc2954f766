import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adminHeaders } from '../support/admin.js';
import { DIALECTS, type TestApp, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { randomPassword, uniqueEmail } from '../support/factories.js';
import type { ApiResponse } from '../support/http.js';
import {
  acceptCode,
  auditEvents,
  consoleGet,
  consolePost,
  enrol,
  INVITATIONS,
  linkToken,
  lookupInvitation,
  newOperator,
  nextStep,
  OPERATORS,
  operatorUrl,
  passwordStep,
  SESSION,
  SESSION_PASSWORD,
  SESSION_SECOND_FACTOR,
  signInOperator,
  type TestOperator,
  TOTP_STEP_MS,
  totp,
} from './operator-kit.js';

/**
 * What a hostile tester found in the operators' sign-in and second-factor resets: codes raced on one
 * sign-in, guessing over many sign-ins, and reset links used by the admin who made them.
 */

const MINUTE = 60_000;
const LOCK_AFTER = 20;

type Api = Pick<TestApp, 'api' | 'clock' | 'url' | 'env'>;

/** `count` different 6-digit codes, none of them a code of the steps around `timeMs`. */
function wrongCodes(secret: string, timeMs: number, count: number): string[] {
  const near = new Set([-2, -1, 0, 1, 2].map((step) => totp(secret, timeMs + step * TOTP_STEP_MS)));
  const codes: string[] = [];
  for (let candidate = 100_000; codes.length < count; candidate += 7919) {
    const code = String(candidate % 1_000_000).padStart(6, '0');
    if (!near.has(code) && !codes.includes(code)) codes.push(code);
  }
  return codes;
}

const sendCode = (t: Api, challenge: string, code: string) =>
  t.api.post(SESSION_SECOND_FACTOR, { challenge, code });

/** How many answers say the code was checked: right (200) or wrong (422 OTP_INVALID). */
const checked = (answers: ApiResponse[]) =>
  answers.filter((answer) => answer.status === 200 || answer.body?.error_code === 'OTP_INVALID').length;

async function operatorItem(t: Api, admin: TestOperator, id: string) {
  const response = await consoleGet(t, admin.session, `${OPERATORS}?limit=100`);
  assert.equal(response.status, 200, response.text);
  return (response.body.data.items as Array<Record<string, unknown>>).find((item) => item.id === id)!;
}

for (const dialect of DIALECTS) {
  describe(`second-factor guessing [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);

    it('checks at most 5 codes of one sign-in: 59 wrong codes and the right one sent at once', async () => {
      const { t } = suite;
      const operator = await newOperator(t, 'reviewer');
      nextStep(t);
      const challenge = await passwordStep(t, operator);
      const now = t.clock.now();
      const codes = [...wrongCodes(operator.secret, now, 59), totp(operator.secret, now)];
      const answers = await Promise.all(codes.map((code) => sendCode(t, challenge, code)));

      const summary = answers.map((answer) => `${answer.status} ${answer.body?.error_code ?? ''}`).join(', ');
      assert.ok(checked(answers) <= 5, `at most 5 codes checked, got ${checked(answers)}: ${summary}`);
      for (const answer of answers) {
        if (answer.status === 200 || answer.body?.error_code === 'OTP_INVALID') continue;
        // Past the five checks: the sign-in is spent (429), or a right code among them ended it (422).
        assert.ok(
          ['OTP_ATTEMPTS_EXCEEDED', 'SIGN_IN_EXPIRED'].includes(String(answer.body?.error_code)),
          `an unchecked code is refused as such: ${answer.text}`,
        );
      }
      const failures = await auditEvents(t, {
        action: 'operator.second_factor_failed',
        actor_id: operator.id,
      });
      assert.ok(failures.length <= 5, `${failures.length} failures audited`);
      // The sign-in is over either way: a right code on it now is refused.
      nextStep(t);
      const after = await sendCode(t, challenge, totp(operator.secret, t.clock.now()));
      assert.ok([422, 429].includes(after.status), after.text);
      assert.equal(after.headers.get('set-cookie'), null);
    });

    it('locks the second factor after 20 wrong codes in a row over several sign-ins: the right code is refused, an admin can see it and unlock it by a reset', async () => {
      const { t } = suite;
      const admin = await newOperator(t, 'admin');
      const operator = await newOperator(t, 'reviewer');
      nextStep(t);
      const now = t.clock.now();
      const wrong = wrongCodes(operator.secret, now, LOCK_AFTER);
      for (let round = 0; round < LOCK_AFTER / 5; round++) {
        const challenge = await passwordStep(t, operator);
        for (const [index, code] of wrong.slice(round * 5, round * 5 + 5).entries()) {
          const answer = await sendCode(t, challenge, code);
          if (round * 5 + index + 1 < LOCK_AFTER) assertError(answer, 422, 'OTP_INVALID');
          else {
            assertError(answer, 403, 'FORBIDDEN', { what: 'the 20th wrong code' });
            assert.match(answer.body.message, /locked/i);
          }
        }
      }
      // Locked: the password step says so, and the right code is never checked again.
      const signIn = await t.api.post(SESSION_PASSWORD, {
        email: operator.email,
        password: operator.password,
      });
      assertError(signIn, 403, 'FORBIDDEN');
      assert.match(signIn.body.message, /locked/i);
      assert.match(signIn.body.message, /admin/i);

      const listed = await operatorItem(t, admin, operator.id);
      assert.equal(listed.second_factor, 'locked');
      assert.equal(typeof listed.second_factor_locked_at, 'string');
      const locked = await auditEvents(t, { action: 'operator.second_factor_locked' });
      const event = locked.find((candidate) => candidate.target?.id === operator.id);
      assert.ok(event, 'the lock is in the audit trail, where admins read it');
      assert.equal(event.metadata?.['consecutive_failures'], LOCK_AFTER);

      // An admin's reset unlocks it: the operator enrols a new factor with its own password.
      const reset = await consolePost(t, admin.session, operatorUrl(operator.id, 'reset-second-factor'));
      assert.equal(reset.status, 201, reset.text);
      const token = linkToken(reset.body.data.url as string);
      const enrolled = await enrol(t, token, { password: operator.password });
      assert.equal(enrolled.status, 200, enrolled.text);
      const secret = enrolled.body.data.secret as string;
      const accepted = await acceptCode(t, token, totp(secret, t.clock.now()));
      assert.equal(accepted.status, 201, accepted.text);
      assert.equal((await operatorItem(t, admin, operator.id)).second_factor, 'enrolled');
      t.clock.advance(16 * MINUTE);
      const session = await signInOperator(t, { ...operator, secret });
      assert.equal((await consoleGet(t, session, SESSION)).status, 200);
    });

    it('counts wrong codes in a row only: a right code starts the count again', async () => {
      const { t } = suite;
      const admin = await newOperator(t, 'admin');
      const operator = await newOperator(t, 'reviewer');
      for (const phase of [1, 2]) {
        nextStep(t);
        const wrong = wrongCodes(operator.secret, t.clock.now(), LOCK_AFTER - 1);
        for (let round = 0; round * 5 < wrong.length; round++) {
          const challenge = await passwordStep(t, operator);
          for (const code of wrong.slice(round * 5, round * 5 + 5)) {
            assertError(await sendCode(t, challenge, code), 422, 'OTP_INVALID', { what: `phase ${phase}` });
          }
        }
        await signInOperator(t, operator);
        assert.equal((await operatorItem(t, admin, operator.id)).second_factor, 'enrolled');
        t.clock.advance(16 * MINUTE);
      }
    });

    it('never checks more than 20 codes in a row however many sign-ins race: 6 sign-ins × 5 wrong codes at once', async () => {
      const { t } = suite;
      const admin = await newOperator(t, 'admin');
      const operator = await newOperator(t, 'reviewer');
      nextStep(t);
      const challenges = await Promise.all([1, 2, 3, 4, 5, 6].map(() => passwordStep(t, operator)));
      const wrong = wrongCodes(operator.secret, t.clock.now(), 30);
      const answers = await Promise.all(
        challenges.flatMap((challenge, index) =>
          wrong.slice(index * 5, index * 5 + 5).map((code) => sendCode(t, challenge, code)),
        ),
      );
      const invalid = answers.filter((answer) => answer.body?.error_code === 'OTP_INVALID').length;
      assert.ok(invalid <= LOCK_AFTER - 1, `at most 19 answered as checked and wrong, got ${invalid}`);
      const failures = await auditEvents(t, {
        action: 'operator.second_factor_failed',
        actor_id: operator.id,
      });
      assert.ok(failures.length <= LOCK_AFTER, `${failures.length} codes checked`);
      assert.equal(failures.length, LOCK_AFTER, 'the 30 codes spent every check there was');
      assert.equal((await operatorItem(t, admin, operator.id)).second_factor, 'locked');
      const locks = (await auditEvents(t, { action: 'operator.second_factor_locked' })).filter(
        (event) => event.target?.id === operator.id,
      );
      assert.equal(locks.length, 1, 'locked once');
    });
  });

  describe(`second-factor resets [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);

    it('needs the operator’s own password to enrol through a reset link: the admin who made it cannot sign in as the operator', async () => {
      const { t } = suite;
      const admin = await newOperator(t, 'admin');
      const target = await newOperator(t, 'admin');
      const reset = await consolePost(t, admin.session, operatorUrl(target.id, 'reset-second-factor'));
      assert.equal(reset.status, 201, reset.text);
      const token = linkToken(reset.body.data.url as string);
      assert.equal((await lookupInvitation(t, token)).status, 200);

      const bare = await enrol(t, token, {});
      assertError(bare, 422, 'VALIDATION_FAILED', { fields: ['password'] });
      const guessed = await enrol(t, token, { password: admin.password });
      assertError(guessed, 422, 'VALIDATION_FAILED', { fields: ['password'] });
      assert.equal(guessed.headers.get('set-cookie'), null);
      // Nothing was drawn: the link still waits for the operator.
      const accept = await acceptCode(t, token, '123456');
      assertError(accept, 409, 'SETUP_NOT_STARTED', { what: 'no secret was drawn for the admin' });
      const failures = (await auditEvents(t, { action: 'operator.sign_in_failed' })).filter(
        (event) => event.target?.id === target.id && event.metadata?.['reason'] === 'reset_wrong_password',
      );
      assert.equal(failures.length, 1, 'the wrong password is audited');

      const secret = (await enrol(t, token, { password: target.password })).body.data.secret as string;
      const accepted = await acceptCode(t, token, totp(secret, t.clock.now()));
      assert.equal(accepted.status, 201, accepted.text);
      assert.equal(accepted.body.data.operator.id, target.id);
    });

    it('counts a reset link’s password guesses with the operator’s sign-in attempts: the 11th in 15 minutes is 429', async () => {
      const { t } = suite;
      const admin = await newOperator(t, 'admin');
      const target = await newOperator(t, 'reviewer');
      const reset = await consolePost(t, admin.session, operatorUrl(target.id, 'reset-second-factor'));
      const token = linkToken(reset.body.data.url as string);
      for (let guess = 1; guess <= 10; guess++) {
        assertError(
          await enrol(t, token, { password: `guess-${guess}-Harmattan` }),
          422,
          'VALIDATION_FAILED',
        );
      }
      const limited = await enrol(t, token, { password: target.password });
      assertError(limited, 429, 'RATE_LIMITED', { what: 'even the right password' });
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
      t.clock.advance(16 * MINUTE);
      assert.equal((await enrol(t, token, { password: target.password })).status, 200);
    });

    it('refuses an admin resetting its own second factor (403); another admin can, and the target’s sessions end at once', async () => {
      const { t } = suite;
      const admin = await newOperator(t, 'admin');
      const other = await newOperator(t, 'admin');
      const own = await consolePost(t, admin.session, operatorUrl(admin.id, 'reset-second-factor'));
      assertError(own, 403, 'FORBIDDEN');
      assert.match(own.body.message, /another admin/i);
      assert.equal((await consoleGet(t, admin.session, SESSION)).status, 200, 'nothing changed');
      assert.equal((await operatorItem(t, other, admin.id)).second_factor, 'enrolled');

      const second = await signInOperator(t, admin);
      const reset = await consolePost(t, other.session, operatorUrl(admin.id, 'reset-second-factor'));
      assert.equal(reset.status, 201, reset.text);
      for (const session of [admin.session, second]) {
        assertError(await consoleGet(t, session, SESSION), 401, 'UNAUTHENTICATED');
      }
      const audited = (
        await auditEvents(t, { action: 'operator.second_factor_reset', actor_id: other.id })
      ).find((event) => event.target?.id === admin.id);
      assert.equal(audited?.metadata?.['sessions_revoked'], 2, 'one audited change: factor, sessions, link');
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`set-up link tokens stay out of URLs and logs [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);

    it('sets up an operator and resets its factor with the tokens in bodies: no log line holds a token', async () => {
      const { t } = suite;
      const inviteResponse = await t.api.post(
        INVITATIONS,
        { email: uniqueEmail('logs'), role: 'admin' },
        {
          headers: adminHeaders,
        },
      );
      assert.equal(inviteResponse.status, 201, inviteResponse.text);
      const inviteToken = linkToken(inviteResponse.body.data.url as string);
      const password = randomPassword();
      assert.equal((await lookupInvitation(t, inviteToken)).status, 200);
      const enrolled = await enrol(t, inviteToken, {
        name: 'Ngozi',
        password,
        password_confirmation: password,
      });
      assert.equal(enrolled.status, 200, enrolled.text);
      const accepted = await acceptCode(
        t,
        inviteToken,
        totp(enrolled.body.data.secret as string, t.clock.now()),
      );
      assert.equal(accepted.status, 201, accepted.text);

      const other = await newOperator(t, 'reviewer');
      const reset = await t.api.post(operatorUrl(other.id, 'reset-second-factor'), undefined, {
        headers: adminHeaders,
      });
      const resetToken = linkToken(reset.body.data.url as string);
      assert.equal((await enrol(t, resetToken, { password: other.password })).status, 200);

      const lines = t.logs.filter((line) => line.includes('"msg":"request"'));
      assert.ok(
        lines.some((line) => line.includes('/admin/invitations/accept')),
        'the set-up was logged',
      );
      for (const token of [inviteToken, resetToken]) {
        assert.ok(!t.logs.some((line) => line.includes(token)), `a log line holds a set-up token: ${token}`);
      }
    });

    it('censors a token that still arrives in a path or a query, and keeps ids and cursors', async () => {
      const { t } = suite;
      const token = linkToken(
        (
          await t.api.post(
            INVITATIONS,
            { email: uniqueEmail('old'), role: 'reviewer' },
            {
              headers: adminHeaders,
            },
          )
        ).body.data.url as string,
      );
      const oldLink = await t.api.get(`${INVITATIONS}/${token}`);
      assertError(oldLink, 404, 'NOT_FOUND', { what: 'the token is no longer taken in a path' });
      assertError(await t.api.post(`${INVITATIONS}/${token}/accept`, { code: '123456' }), 404, 'NOT_FOUND');
      await t.api.get(`${OPERATORS}?token=${token}&limit=5`, { headers: adminHeaders });
      const id = '0190c6f2-0000-7000-8000-000000000000';
      await t.api.post(operatorUrl(id, 'deactivate'), undefined, { headers: adminHeaders });

      assert.ok(!t.logs.some((line) => line.includes(token)), 'no log line holds the token');
      const lines = t.logs.filter((line) => line.includes('"msg":"request"'));
      assert.ok(
        lines.some((line) => line.includes(`"url":"${INVITATIONS}/[redacted]"`)),
        'the path is kept, censored',
      );
      assert.ok(lines.some((line) => line.includes(`"url":"${OPERATORS}?token=[redacted]&limit=5"`)));
      assert.ok(
        lines.some((line) => line.includes(`${OPERATORS}/${id}/deactivate`)),
        'a UUID is not a secret',
      );
    });
  });
}
