import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { adminHeaders } from '../support/admin.js';
import { DIALECTS, type TestApp, useApp } from '../support/app.js';
import { assertError, ISO_INSTANT, UUID } from '../support/assertions.js';
import { randomPassword } from '../support/factories.js';
import {
  auditEvents,
  type ConsoleSession,
  consoleGet,
  consolePost,
  cookieOf,
  ME_PASSWORD,
  ME_SESSIONS,
  newOperator,
  nextStep,
  passwordStep,
  SESSION,
  SESSION_PASSWORD,
  SESSION_SECOND_FACTOR,
  sessionFrom,
  signInOperator,
  totp,
} from './operator-kit.js';

/** An operator's own account in the console: its password and its sessions (ASVS 6.2.2, 7.5.2). */

const MINUTE = 60_000;
type Api = Pick<TestApp, 'api' | 'clock' | 'url' | 'env'>;

const changePassword = (t: Api, session: ConsoleSession, body: Record<string, unknown>) =>
  consolePost(t, session, ME_PASSWORD, body);

const endSession = (t: Api, session: ConsoleSession, id: string) =>
  t.api.delete(`${ME_SESSIONS}/${id}`, {
    headers: { cookie: cookieOf(session), 'x-csrf-token': session.csrf, origin: session.origin },
  });

/** A sign-in from a browser of its own (User-Agent), as a person opens the console elsewhere. */
async function signInWith(
  t: Api,
  operator: { email: string; password: string; secret: string },
  agent: string,
) {
  nextStep(t);
  const challenge = await passwordStep(t, operator);
  const response = await t.api.post(
    SESSION_SECOND_FACTOR,
    { challenge, code: totp(operator.secret, t.clock.now()) },
    { headers: { 'user-agent': agent } },
  );
  assert.equal(response.status, 200, response.text);
  return sessionFrom(t, response);
}

for (const dialect of DIALECTS) {
  describe(`an operator's own password [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);

    it('changes the password given the current one: other sessions end, this one stays, the old password stops working', async () => {
      const { t } = suite;
      const operator = await newOperator(t, 'reviewer');
      const other = await signInOperator(t, operator);
      const password = randomPassword();
      const changed = await changePassword(t, operator.session, {
        current_password: operator.password,
        password,
        password_confirmation: password,
      });
      assert.equal(changed.status, 200, changed.text);
      assert.equal(changed.body.data.sessions_ended, 1);
      assert.equal((await consoleGet(t, operator.session, SESSION)).status, 200, 'this session stays');
      assertError(await consoleGet(t, other, SESSION), 401, 'UNAUTHENTICATED', { what: 'the other session' });

      assertError(
        await t.api.post(SESSION_PASSWORD, { email: operator.email, password: operator.password }),
        401,
        'INVALID_CREDENTIALS',
        { what: 'the old password' },
      );
      const session = await signInOperator(t, { ...operator, password });
      assert.equal((await consoleGet(t, session, SESSION)).status, 200);
      const audited = await auditEvents(t, { action: 'operator.password_changed', actor_id: operator.id });
      assert.equal(audited.length, 1);
      assert.equal(audited[0]?.metadata?.['sessions_ended'], 1);
      assert.ok(!JSON.stringify(audited).includes(password), 'never the password');
    });

    it('ends a sign-in half done with the old password', async () => {
      const { t } = suite;
      const operator = await newOperator(t, 'reviewer');
      nextStep(t);
      const challenge = await passwordStep(t, operator);
      const password = randomPassword();
      const changed = await changePassword(t, operator.session, {
        current_password: operator.password,
        password,
        password_confirmation: password,
      });
      assert.equal(changed.status, 200, changed.text);
      const finish = await t.api.post(SESSION_SECOND_FACTOR, {
        challenge,
        code: totp(operator.secret, t.clock.now()),
      });
      assertError(finish, 422, 'SIGN_IN_EXPIRED');
      assert.equal(finish.headers.get('set-cookie'), null);
    });

    it('refuses a wrong current password (422, audited, counted: the 11th try in 15 minutes is 429) and weak new ones', async () => {
      const { t } = suite;
      const operator = await newOperator(t, 'reviewer');
      const strong = randomPassword();
      const wrong = await changePassword(t, operator.session, {
        current_password: `${operator.password}x`,
        password: strong,
        password_confirmation: strong,
      });
      assertError(wrong, 422, 'VALIDATION_FAILED', { fields: ['current_password'] });
      const failed = await auditEvents(t, {
        action: 'operator.password_change_failed',
        actor_id: operator.id,
      });
      assert.equal(failed.length, 1);

      for (const [what, body, field] of [
        ['too short', { password: 'Ab1-x', password_confirmation: 'Ab1-x' }, 'password'],
        ['common', { password: 'password123', password_confirmation: 'password123' }, 'password'],
        ['the e-mail', { password: operator.email, password_confirmation: operator.email }, 'password'],
        ['unchanged', { password: operator.password, password_confirmation: operator.password }, 'password'],
        ['not confirmed', { password: strong, password_confirmation: `${strong}!` }, 'password_confirmation'],
      ] as const) {
        const response = await changePassword(t, operator.session, {
          current_password: operator.password,
          ...body,
        });
        assertError(response, 422, 'VALIDATION_FAILED', { fields: [field], what });
      }
      // Six tries so far; four more wrong ones, then even the right one waits.
      for (let guess = 0; guess < 4; guess++) {
        await changePassword(t, operator.session, {
          current_password: `guess-${guess}`,
          password: strong,
          password_confirmation: strong,
        });
      }
      const limited = await changePassword(t, operator.session, {
        current_password: operator.password,
        password: strong,
        password_confirmation: strong,
      });
      assertError(limited, 429, 'RATE_LIMITED');
      t.clock.advance(16 * MINUTE);
      const session = await signInOperator(t, operator);
      assert.equal(
        (
          await changePassword(t, session, {
            current_password: operator.password,
            password: strong,
            password_confirmation: strong,
          })
        ).status,
        200,
      );
    });

    it('takes the change only from the console session with its anti-forgery token, never ADMIN_API_KEY', async () => {
      const { t } = suite;
      const operator = await newOperator(t, 'admin');
      const password = randomPassword();
      const body = { current_password: operator.password, password, password_confirmation: password };
      assertError(
        await t.api.post(ME_PASSWORD, body, { headers: { cookie: cookieOf(operator.session) } }),
        403,
        'CSRF_REJECTED',
      );
      assertError(await t.api.post(ME_PASSWORD, body, { headers: adminHeaders }), 401, 'UNAUTHENTICATED');
      assertError(await t.api.get(ME_SESSIONS, { headers: adminHeaders }), 401, 'UNAUTHENTICATED');
      assert.equal((await signInOperator(t, operator)).token.length > 0, true, 'the password is unchanged');
    });
  });

  describe(`an operator's own sessions [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);

    it('lists its live sessions, newest first, with where and with what browser each signed in; the current one marked', async () => {
      const { t } = suite;
      const operator = await newOperator(t, 'reviewer');
      const stranger = await newOperator(t, 'reviewer');
      t.clock.advance(MINUTE);
      const laptop = await signInWith(t, operator, 'Mozilla/5.0 (X11; Linux x86_64) Laptop');
      t.clock.advance(MINUTE);
      const phone = await signInWith(t, operator, `Phone/${'x'.repeat(400)}`);
      const response = await consoleGet(t, phone, ME_SESSIONS);
      assert.equal(response.status, 200, response.text);
      const items = response.body.data.items as Array<Record<string, unknown>>;
      assert.equal(items.length, 3, 'the set-up session and two sign-ins');
      for (const item of items) {
        assert.deepEqual(Object.keys(item).sort(), [
          'created_at',
          'current',
          'expires_at',
          'id',
          'ip',
          'last_seen_at',
          'user_agent',
        ]);
        assert.match(String(item.id), UUID);
        assert.equal(item.ip, '127.0.0.1');
        for (const field of ['created_at', 'last_seen_at', 'expires_at'])
          assert.match(String(item[field]), ISO_INSTANT);
      }
      assert.deepEqual(
        items.map((item) => item.current),
        [true, false, false],
      );
      assert.equal(String(items[0]?.user_agent).length, 256, 'a User-Agent is cut to 256 characters');
      assert.equal(items[1]?.user_agent, 'Mozilla/5.0 (X11; Linux x86_64) Laptop');
      const text = JSON.stringify(response.body);
      for (const secret of [phone.token, laptop.token, operator.session.token, phone.csrf]) {
        assert.ok(!text.includes(secret), 'never a session token');
      }
      const strangers = (await consoleGet(t, stranger.session, ME_SESSIONS)).body.data.items as unknown[];
      assert.equal(strangers.length, 1, 'another operator sees only its own');

      t.clock.advance(31 * MINUTE);
      const fresh = await signInOperator(t, operator);
      const after = (await consoleGet(t, fresh, ME_SESSIONS)).body.data.items as unknown[];
      assert.equal(after.length, 1, 'idle sessions are gone from the list');
    });

    it('ends one session by its id at once (404 for one not its own), or every other one', async () => {
      const { t } = suite;
      const operator = await newOperator(t, 'reviewer');
      const stranger = await newOperator(t, 'reviewer');
      const laptop = await signInWith(t, operator, 'Laptop');
      const phone = await signInWith(t, operator, 'Phone');
      const items = (await consoleGet(t, operator.session, ME_SESSIONS)).body.data.items as Array<{
        id: string;
        user_agent: string | null;
      }>;
      const laptopId = items.find((item) => item.user_agent === 'Laptop')!.id;
      const strangerId = (
        (await consoleGet(t, stranger.session, ME_SESSIONS)).body.data.items as Array<{ id: string }>
      )[0]!.id;

      assertError(await endSession(t, operator.session, strangerId), 404, 'NOT_FOUND', {
        what: 'not its own',
      });
      assertError(await endSession(t, operator.session, randomUUID()), 404, 'NOT_FOUND');
      assert.equal((await consoleGet(t, stranger.session, SESSION)).status, 200, 'the stranger is untouched');
      const ended = await endSession(t, operator.session, laptopId);
      assert.equal(ended.status, 200, ended.text);
      assertError(await consoleGet(t, laptop, SESSION), 401, 'UNAUTHENTICATED');
      assert.equal((await consoleGet(t, phone, SESSION)).status, 200);

      const others = await consolePost(t, phone, `${ME_SESSIONS}/end-others`);
      assert.equal(others.status, 200, others.text);
      assert.equal(others.body.data.sessions_ended, 1);
      assertError(await consoleGet(t, operator.session, SESSION), 401, 'UNAUTHENTICATED');
      assert.equal((await consoleGet(t, phone, SESSION)).status, 200, 'the calling session stays');
      const audited = await auditEvents(t, { action: 'operator.session_ended', actor_id: operator.id });
      assert.equal(audited.length, 1);
      assert.equal(audited[0]?.metadata?.['session_id'], laptopId);
    });
  });
}
