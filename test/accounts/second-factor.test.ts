import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SecondFactorRequiredError } from '../../sdk/src/index.js';
import { sdkClient } from '../sdk/helpers.js';
import { DIALECTS, type TestApp, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { customerBody, randomPassword, uniqueEmail } from '../support/factories.js';
import { createAccount, newPartner, signIn } from '../support/partners.js';
import {
  API_KEYS,
  CREATE_ACCOUNT,
  ENVIRONMENT,
  LOGIN,
  LOGIN_SECOND_FACTOR,
  MY_SECOND_FACTOR,
  MY_SECOND_FACTOR_CONFIRM,
  SECURITY_SETTINGS,
  userSecondFactorReset,
  VIRTUAL_ACCOUNTS,
} from '../support/paths.js';
import { auditActions, sessionsOf } from '../support/records.js';
import { appNow, enrolSecondFactor, loginWithSecondFactor } from '../support/second-factor.js';
import type { SmtpSink } from '../support/smtp-sink.js';
import { nextTotpStep, notTheCode, totp } from '../support/totp.js';

const INVITATIONS = VIRTUAL_ACCOUNTS.replace('/virtual-account', '/partner/settings/invitations');
const ACCEPT = LOGIN.replace('/login', '/invitations/accept');
const USERS_ME = MY_SECOND_FACTOR.replace('/second-factor', '');
const SESSION = LOGIN.replace('/login', '/session');

/** The password step of a login; its answer's data (a challenge for a user with a factor). */
async function passwordStep(t: Pick<TestApp, 'api'>, account: { email: string; password: string }) {
  const response = await t.api.post(LOGIN, { email: account.email, password: account.password });
  assert.equal(response.status, 200, response.text);
  return response.body.data as { second_factor_required?: true; challenge_token: string; expires_in: number };
}

/** Invites a user with a role and accepts the e-mailed link: their e-mail, password and sandbox session. */
async function invitedUser(ctx: { t: TestApp; sink: SmtpSink }, ownerToken: string, role: string) {
  const email = uniqueEmail();
  const invited = await ctx.t.api.post(INVITATIONS, { email, role }, { token: ownerToken });
  assert.equal(invited.status, 201, invited.text);
  const mail = await ctx.sink.waitForMail(email);
  const raw = mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const token = /#token=([A-Za-z0-9_-]+)/.exec(raw)?.[1];
  assert.ok(token, 'the invitation e-mail carries the link');
  const password = randomPassword();
  const accepted = await ctx.t.api.post(ACCEPT, {
    token,
    name: `${role} person`,
    password,
    password_confirmation: password,
  });
  assert.equal(accepted.status, 200, accepted.text);
  const me = await ctx.t.api.get(USERS_ME, { token: accepted.body.data.token });
  assert.equal(me.status, 200, me.text);
  return { email, password, token: accepted.body.data.token as string, id: me.body.data.id as string };
}

for (const dialect of DIALECTS) {
  describe(`dashboard second factor [${dialect.name}]`, { skip: dialect.skip }, () => {
    const ctx = useApp(dialect.name);

    it('enrols, then a login needs a code: wrong codes count, a used code is refused, a recovery code works once', async () => {
      const { t } = ctx;
      const partner = await newPartner(ctx, 'signed-in');
      const started = await t.api.post(MY_SECOND_FACTOR, undefined, { token: partner.token });
      assert.equal(started.status, 200, started.text);
      const secret = started.body.data.secret as string;
      assert.match(started.body.data.otpauth_url, /^otpauth:\/\/totp\/BaaS%20Dashboard:/);
      assert.match(started.body.data.otpauth_url, /issuer=BaaS%20Dashboard/);
      // Until confirmed, logins are as before.
      const pendingLogin = await t.api.post(LOGIN, { email: partner.email, password: partner.password });
      assert.equal(typeof pendingLogin.body.data.token, 'string', 'no factor until confirmed');

      const wrongConfirm = await t.api.post(
        MY_SECOND_FACTOR_CONFIRM,
        { code: notTheCode(secret, t.clock.now()) },
        { token: partner.token },
      );
      assertError(wrongConfirm, 422, 'OTP_INVALID');
      const confirmed = await t.api.post(
        MY_SECOND_FACTOR_CONFIRM,
        { code: totp(secret, t.clock.now()) },
        { token: partner.token },
      );
      assert.equal(confirmed.status, 200, confirmed.text);
      const recovery = confirmed.body.data.recovery_codes as string[];
      assert.equal(recovery.length, 10);
      const stored = await t.db
        .selectFrom('partner_users')
        .selectAll()
        .where('email', '=', partner.email)
        .executeTakeFirstOrThrow();
      assert.ok(stored.totp_secret && !stored.totp_secret.includes(secret), 'the secret is stored encrypted');
      const hashes = await t.db
        .selectFrom('partner_user_recovery_codes')
        .select('code_hash')
        .where('user_id', '=', stored.id)
        .execute();
      assert.equal(hashes.length, 10);
      assert.ok(
        hashes.every((row) => !recovery.some((code) => row.code_hash.includes(code.replace('-', '')))),
      );

      // The password alone gives no session now.
      const challenge = await passwordStep(t, partner);
      assert.equal(challenge.second_factor_required, true);
      assert.equal(challenge.expires_in, 300);
      assert.equal((challenge as unknown as { token?: string }).token, undefined);
      const signIns = await t.db.selectFrom('partner_sign_ins').selectAll().execute();
      assert.ok(
        signIns.every((row) => row.token_hash !== challenge.challenge_token),
        'only the hash is kept',
      );

      // A wrong code counts on the challenge and on the user.
      const wrong = await t.api.post(LOGIN_SECOND_FACTOR, {
        challenge_token: challenge.challenge_token,
        code: notTheCode(secret, t.clock.now()),
      });
      assertError(wrong, 422, 'OTP_INVALID');
      const afterWrong = await t.db
        .selectFrom('partner_users')
        .select('second_factor_failures')
        .where('id', '=', stored.id)
        .executeTakeFirstOrThrow();
      assert.equal(Number(afterWrong.second_factor_failures), 1);

      // The code of the step the enrolment used is refused: a code works once.
      const replayed = await t.api.post(LOGIN_SECOND_FACTOR, {
        challenge_token: challenge.challenge_token,
        code: totp(secret, t.clock.now()),
      });
      assertError(replayed, 422, 'OTP_INVALID');
      assert.match(replayed.body.message, /already used/);

      nextTotpStep(t.clock);
      const fresh = await passwordStep(t, partner);
      const right = await t.api.post(LOGIN_SECOND_FACTOR, {
        challenge_token: fresh.challenge_token,
        code: totp(secret, t.clock.now()),
      });
      assert.equal(right.status, 200, right.text);
      assert.equal(typeof right.body.data.token, 'string');
      assert.equal(right.body.data.token_type, 'Bearer');
      const again = await t.api.post(LOGIN_SECOND_FACTOR, {
        challenge_token: fresh.challenge_token,
        code: totp(secret, t.clock.now()),
      });
      assertError(again, 422, 'SIGN_IN_EXPIRED', { what: 'a challenge works once' });
      const cleared = await t.db
        .selectFrom('partner_users')
        .select('second_factor_failures')
        .where('id', '=', stored.id)
        .executeTakeFirstOrThrow();
      assert.equal(Number(cleared.second_factor_failures), 0, 'a right code clears the failures');

      // A recovery code works once (case and dashes do not matter).
      const byRecovery = await passwordStep(t, partner);
      const recovered = await t.api.post(LOGIN_SECOND_FACTOR, {
        challenge_token: byRecovery.challenge_token,
        recovery_code: recovery[0]!.toUpperCase().replace('-', ' '),
      });
      assert.equal(recovered.status, 200, recovered.text);
      const reuse = await passwordStep(t, partner);
      const reused = await t.api.post(LOGIN_SECOND_FACTOR, {
        challenge_token: reuse.challenge_token,
        recovery_code: recovery[0],
      });
      assertError(reused, 422, 'OTP_INVALID');

      const sessions = await sessionsOf(t, partner.companyId);
      const flagged = sessions.map((row) => Number((row as { second_factor: number }).second_factor)).sort();
      assert.deepEqual(flagged, [0, 0, 1, 1], 'sessions record whether a second factor made them');

      const status = await t.api.get(MY_SECOND_FACTOR, { token: right.body.data.token });
      assert.equal(status.status, 200, status.text);
      assert.equal(status.body.data.enabled, true);
      assert.equal(status.body.data.this_session, true);
      assert.equal(status.body.data.recovery_codes_left, 9);

      const events = await auditActions(t, partner.companyId);
      for (const action of ['user.second_factor_enrolled', 'user.second_factor_failed']) {
        const event = events.find((row) => row.action === action);
        assert.ok(event, `${action} audited`);
        assert.equal(event.actor_type, 'user');
        assert.equal(event.actor_id, stored.id, `${action} names the user`);
      }
    });

    it('replays start and confirm by Idempotency-Key without the secret or the recovery codes, which are never stored', async () => {
      const { t } = ctx;
      const partner = await newPartner(ctx, 'signed-in');
      const key = { 'idempotency-key': `start-${uniqueEmail()}` };
      const started = await t.api.post(MY_SECOND_FACTOR, undefined, { token: partner.token, headers: key });
      assert.equal(started.status, 200, started.text);
      const secret = started.body.data.secret as string;
      const replayed = await t.api.post(MY_SECOND_FACTOR, undefined, { token: partner.token, headers: key });
      assert.equal(replayed.status, 200, replayed.text);
      assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replayed.body.data, { secret: null, otpauth_url: null });
      assert.match(replayed.body.message, /start again/);

      const confirmKey = { 'idempotency-key': `confirm-${uniqueEmail()}` };
      const body = { code: totp(secret, appNow(t)) };
      const confirmed = await t.api.post(MY_SECOND_FACTOR_CONFIRM, body, {
        token: partner.token,
        headers: confirmKey,
      });
      assert.equal(confirmed.status, 200, confirmed.text);
      const codes = confirmed.body.data.recovery_codes as string[];
      const again = await t.api.post(MY_SECOND_FACTOR_CONFIRM, body, {
        token: partner.token,
        headers: confirmKey,
      });
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(again.body.data.recovery_codes, null);
      assert.equal(again.body.data.enrolled_at, confirmed.body.data.enrolled_at);

      const stored = JSON.stringify(await t.db.selectFrom('idempotency_keys').selectAll().execute());
      assert.ok(!stored.includes(secret), 'the secret is not kept for replays');
      assert.ok(!codes.some((code) => stored.includes(code)), 'nor are the recovery codes');
    });

    it("the SDK's login throws SecondFactorRequiredError, and loginSecondFactor finishes the login", async () => {
      const { t } = ctx;
      const partner = await newPartner(ctx, 'signed-in');
      const factor = await enrolSecondFactor(t, partner.token);
      const { client } = sdkClient(t.url);
      const thrown = await client.onboarding.login({ email: partner.email, password: partner.password }).then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.ok(thrown instanceof SecondFactorRequiredError, String(thrown));
      assert.equal(thrown.expiresIn, 300);
      assert.equal(client.token, undefined, 'no session yet');
      const session = await client.onboarding.loginSecondFactor({
        challenge_token: thrown.challengeToken,
        recovery_code: factor.recoveryCodes[0]!,
      });
      assert.equal(client.token, session.token);
    });

    it('ends a challenge after 5 wrong codes and locks the factor after 20 in a row', async () => {
      const { t } = ctx;
      const partner = await newPartner(ctx, 'signed-in');
      const factor = await enrolSecondFactor(t, partner.token);
      const wrongCode = () => notTheCode(factor.secret, t.clock.now());
      for (let login = 0; login < 4; login++) {
        const challenge = await passwordStep(t, partner);
        for (let attempt = 0; attempt < 5; attempt++) {
          const wrong = await t.api.post(LOGIN_SECOND_FACTOR, {
            challenge_token: challenge.challenge_token,
            code: wrongCode(),
          });
          if (login === 3 && attempt === 4) assertError(wrong, 403, 'FORBIDDEN', { what: 'the 20th locks' });
          else assertError(wrong, 422, 'OTP_INVALID', { what: `login ${login} attempt ${attempt}` });
        }
        if (login === 0) {
          const sixth = await t.api.post(LOGIN_SECOND_FACTOR, {
            challenge_token: challenge.challenge_token,
            code: totp(factor.secret, t.clock.now() + 30_000),
          });
          assertError(sixth, 429, 'OTP_ATTEMPTS_EXCEEDED');
        }
      }
      const locked = await t.api.post(LOGIN, { email: partner.email, password: partner.password });
      assertError(locked, 403, 'FORBIDDEN');
      assert.match(locked.body.message, /locked/);
      const events = await auditActions(t, partner.companyId, 'user.second_factor_locked');
      assert.equal(events.length, 1);
    });

    it('turns the factor off with the password; owners reset others; an admin cannot reset an owner', async () => {
      const { t } = ctx;
      const partner = await newPartner(ctx, 'signed-in');
      const admin = await invitedUser(ctx, partner.token, 'admin');
      const ownerFactor = await enrolSecondFactor(t, partner.token);
      const adminFactor = await enrolSecondFactor(t, admin.token);
      const owner = await t.db
        .selectFrom('partner_users')
        .select('id')
        .where('email', '=', partner.email)
        .executeTakeFirstOrThrow();

      const byAdmin = await t.api.post(userSecondFactorReset(owner.id), undefined, { token: admin.token });
      assertError(byAdmin, 403, 'FORBIDDEN');
      assert.match(byAdmin.body.message, /owner/);
      const ownAsAdmin = await t.api.post(userSecondFactorReset(admin.id), undefined, { token: admin.token });
      assertError(ownAsAdmin, 403, 'FORBIDDEN');

      const reset = await t.api.post(userSecondFactorReset(admin.id), undefined, { token: partner.token });
      assert.equal(reset.status, 200, reset.text);
      const adminLogin = await t.api.post(LOGIN, { email: admin.email, password: admin.password });
      assert.equal(typeof adminLogin.body.data.token, 'string', 'after a reset the password alone logs in');
      const [resetEvent] = await auditActions(t, partner.companyId, 'user.second_factor_reset');
      assert.equal(resetEvent?.actor_type, 'user');
      assert.equal(resetEvent?.actor_id, owner.id);
      assert.equal(resetEvent?.target_id, admin.id);
      void adminFactor;

      const wrongPassword = await t.api.delete(MY_SECOND_FACTOR, {
        json: { password: 'not-my-password-at-all' },
        token: partner.token,
      });
      assertError(wrongPassword, 422, 'VALIDATION_FAILED', { fields: ['password'] });
      const off = await t.api.delete(MY_SECOND_FACTOR, {
        json: { password: partner.password },
        token: partner.token,
      });
      assert.equal(off.status, 200, off.text);
      const plain = await t.api.post(LOGIN, { email: partner.email, password: partner.password });
      assert.equal(typeof plain.body.data.token, 'string');
      void ownerFactor;
    });

    it('live money by session needs a second factor by default; the sandbox and API keys do not', async () => {
      const { t } = ctx;
      const partner = await newPartner(ctx, 'active');
      const liveKey = (
        await t.api.post(API_KEYS, { name: 'live', environment: 'live' }, { token: partner.token })
      ).body.data.key as string;
      const sandboxAccount = await t.api.post(CREATE_ACCOUNT, customerBody(), { token: partner.token });
      assert.equal(sandboxAccount.status, 201, sandboxAccount.text);

      const live = await signIn(t, partner, 'live');
      const refused = await t.api.post(CREATE_ACCOUNT, customerBody(), { token: live });
      assertError(refused, 403, 'SECOND_FACTOR_REQUIRED');
      assert.match(refused.body.message, /Settings → Users → your second factor/);
      const read = await t.api.get(VIRTUAL_ACCOUNTS, { token: live });
      assert.equal(read.status, 200, read.text);
      await createAccount(t, liveKey);

      const factor = await enrolSecondFactor(t, partner.token);
      const refusedStill = await t.api.post(CREATE_ACCOUNT, customerBody(), { token: live });
      assertError(refusedStill, 403, 'SECOND_FACTOR_REQUIRED', { what: 'a session made before enrolling' });
      const withFactor = await signIn(t, { ...partner, secondFactor: factor }, 'live');
      await createAccount(t, withFactor);
    });

    it("'everyone': sessions without a factor may only enrol, read the session and log out", async () => {
      const { t } = ctx;
      const partner = await newPartner(ctx, 'sandbox');
      const initial = await t.api.get(SECURITY_SETTINGS, { token: partner.token });
      assert.equal(initial.body.data.second_factor, 'live_money');
      const admin = await invitedUser(ctx, partner.token, 'admin');
      const byAdmin = await t.api.put(
        SECURITY_SETTINGS,
        { second_factor: 'everyone' },
        { token: admin.token },
      );
      assertError(byAdmin, 403, 'FORBIDDEN');
      const withoutFactor = await t.api.put(
        SECURITY_SETTINGS,
        { second_factor: 'everyone' },
        { token: partner.token },
      );
      assertError(withoutFactor, 403, 'SECOND_FACTOR_REQUIRED');

      const factor = await enrolSecondFactor(t, partner.token);
      const strong = await loginWithSecondFactor(t, { ...partner, secondFactor: factor });
      const set = await t.api.put(SECURITY_SETTINGS, { second_factor: 'everyone' }, { token: strong.token });
      assert.equal(set.status, 200, set.text);
      assert.equal(set.body.data.second_factor, 'everyone');

      assertError(await t.api.get(API_KEYS, { token: partner.token }), 403, 'SECOND_FACTOR_REQUIRED');
      assertError(await t.api.get(API_KEYS, { token: admin.token }), 403, 'SECOND_FACTOR_REQUIRED');
      assertError(
        await t.api.put(ENVIRONMENT, { environment: 'sandbox' }, { token: admin.token }),
        403,
        'SECOND_FACTOR_REQUIRED',
      );
      assert.equal((await t.api.get(SESSION, { token: admin.token })).status, 200);
      assert.equal((await t.api.get(USERS_ME, { token: admin.token })).status, 200);
      assert.equal((await t.api.get(MY_SECOND_FACTOR, { token: admin.token })).status, 200);
      assert.equal((await t.api.get(API_KEYS, { token: strong.token })).status, 200);
      assert.equal(
        (await t.api.get(VIRTUAL_ACCOUNTS, { token: partner.sandboxKey })).status,
        200,
        'API keys are not asked',
      );

      // The admin enrols with their session without a factor, then logs in with it.
      const adminFactor = await enrolSecondFactor(t, admin.token);
      const adminStrong = await loginWithSecondFactor(t, { ...admin, secondFactor: adminFactor });
      assert.equal((await t.api.get(API_KEYS, { token: adminStrong.token })).status, 200);
      const off = await t.api.delete(MY_SECOND_FACTOR, {
        json: { password: admin.password },
        token: adminStrong.token,
      });
      assertError(off, 409, 'SECOND_FACTOR_ENFORCED');

      const [changed] = await auditActions(t, partner.companyId, 'partner.security_changed');
      assert.equal(changed?.actor_type, 'user');
      assert.deepEqual(JSON.parse(String(changed?.metadata)), {
        second_factor: { from: 'live_money', to: 'everyone' },
      });
      assert.ok(appNow(t) > 0);
    });
  });
}
