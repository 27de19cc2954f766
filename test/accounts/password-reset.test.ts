import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError, retryAfterSeconds } from '../support/assertions.js';
import { STRONG_PASSWORD, uniqueEmail, wrongCode } from '../support/factories.js';
import { createAccount, createApiKey, newPartner } from '../support/partners.js';
import {
  BUSINESS_INFO,
  FORGOT_PASSWORD,
  LOGIN,
  REGISTER,
  RESET_PASSWORD,
  VERIFY_OTP,
} from '../support/paths.js';
import { auditActions } from '../support/records.js';

const NEW_PASSWORD = 'Harmattan-Ledger-Dawn-77';

const resetBody = (email: string, otp: string, password = NEW_PASSWORD) => ({
  email,
  otp,
  password,
  password_confirmation: password,
});

for (const dialect of DIALECTS) {
  describe(`password recovery [${dialect.name}]`, { skip: dialect.skip }, () => {
    const ctx = useApp(dialect.name);

    it('answers forgot with the same 200 for unknown, unverified and verified addresses, mailing only real accounts', async () => {
      const unverified = await newPartner(ctx, 'registered');
      const verified = await newPartner(ctx, 'verified');
      const unknown = uniqueEmail('nobody');
      const bodies = [];
      for (const email of [unknown, unverified.email, verified.email]) {
        const response = await ctx.t.api.post(FORGOT_PASSWORD, { email });
        assert.equal(response.status, 200, response.text);
        bodies.push(response.body);
      }
      assert.deepEqual(bodies[0], bodies[1]);
      assert.deepEqual(bodies[0], bodies[2]);
      assert.equal(bodies[0]!.data, undefined);
      await ctx.sink.otpFor(verified.email, 2, 'password reset');
      await ctx.sink.otpFor(unverified.email, 2, 'password reset');
      assert.equal(ctx.sink.mailsTo(unknown).length, 0);
    });

    it('sets the new password, revokes every session and records it in the audit trail', async () => {
      const account = await newPartner(ctx, 'verified');
      const login = await ctx.t.api.post(LOGIN, { email: account.email, password: account.password });
      const oldToken = login.body.data.token as string;
      assert.equal((await ctx.t.api.get(BUSINESS_INFO, { token: oldToken })).status, 200);

      assert.equal((await ctx.t.api.post(FORGOT_PASSWORD, { email: account.email })).status, 200);
      const code = await ctx.sink.otpFor(account.email, 2, 'password reset');
      const reset = await ctx.t.api.post(RESET_PASSWORD, resetBody(account.email, code));
      assert.equal(reset.status, 200, reset.text);
      assert.equal(reset.body.status, 'success');

      assertError(await ctx.t.api.get(BUSINESS_INFO, { token: oldToken }), 401, 'UNAUTHENTICATED');
      assertError(
        await ctx.t.api.post(LOGIN, { email: account.email, password: account.password }),
        401,
        'INVALID_CREDENTIALS',
      );
      const fresh = await ctx.t.api.post(LOGIN, { email: account.email, password: NEW_PASSWORD });
      assert.equal(fresh.status, 200, fresh.text);
      const events = await auditActions(ctx.t, account.companyId, 'account.password_reset');
      assert.equal(events.length, 1);
      assert.equal(JSON.parse(events[0]!.metadata ?? '{}').sessions_revoked, 1);

      // The code is single use.
      assertError(await ctx.t.api.post(RESET_PASSWORD, resetBody(account.email, code)), 422, 'OTP_INVALID');
    });

    it('takes a squatted address back: the owner resets, the account becomes theirs and verified, the squatter is locked out', async () => {
      const victim = uniqueEmail('victim');
      const squatter = await newPartner(ctx, 'registered', {
        email: victim,
        password: 'Squatter-Owns-This-1',
        password_confirmation: 'Squatter-Owns-This-1',
        business_name: 'Squat Holdings',
        phone: '+234 809 999 9999',
      });
      assertError(
        await ctx.t.api.post(LOGIN, { email: victim, password: 'Squatter-Owns-This-1' }),
        403,
        'ACCOUNT_NOT_VERIFIED',
      );
      // The owner cannot register (taken) but can recover the address.
      assertError(
        await ctx.t.api.post(REGISTER, {
          business_name: 'Real Owner Ltd',
          email: victim,
          password: STRONG_PASSWORD,
          password_confirmation: STRONG_PASSWORD,
          phone: '+2348031234567',
        }),
        422,
        'VALIDATION_FAILED',
        { fields: ['email'] },
      );
      assert.equal((await ctx.t.api.post(FORGOT_PASSWORD, { email: victim })).status, 200);
      const code = await ctx.sink.otpFor(victim, 2, 'password reset');
      assert.equal((await ctx.t.api.post(RESET_PASSWORD, resetBody(victim, code))).status, 200);

      assertError(
        await ctx.t.api.post(LOGIN, { email: victim, password: 'Squatter-Owns-This-1' }),
        401,
        'INVALID_CREDENTIALS',
      );
      const owner = await ctx.t.api.post(LOGIN, { email: victim, password: NEW_PASSWORD });
      assert.equal(owner.status, 200, owner.text);
      const row = await ctx.t.db
        .selectFrom('partners')
        .select('verified_at')
        .where('id', '=', squatter.companyId)
        .executeTakeFirstOrThrow();
      assert.notEqual(row.verified_at, null, 'the reset proves the address');
      // The registration code the squatter never had stays useless.
      assertError(
        await ctx.t.api.post(VERIFY_OTP, { email: victim, otp: '000000' }),
        409,
        'ACCOUNT_ALREADY_VERIFIED',
      );
      // The squatter's business name and phone are still on the account; the owner corrects them.
      const token = owner.body.data.token as string;
      const before = await ctx.t.api.get(BUSINESS_INFO, { token });
      assert.equal(before.body.data.business_name, 'Squat Holdings');
      const corrected = await ctx.t.api.put(
        BUSINESS_INFO,
        { business_name: 'Real Owner Ltd', phone: '+2348031234567' },
        { token },
      );
      assert.equal(corrected.status, 200, corrected.text);
      assert.equal(corrected.body.data.business_name, 'Real Owner Ltd');
      assert.equal(corrected.body.data.phone, '+2348031234567');
      // New virtual accounts carry the owner's name.
      const key = await createApiKey(ctx.t, token, 'sandbox');
      const account = await createAccount(ctx.t, key.key);
      assert.match(account.account_name, /^Real Owner Ltd\//);
    });

    it('checks the new password before the code: a refused password uses up no guess', async () => {
      const account = await newPartner(ctx, 'verified');
      await ctx.t.api.post(FORGOT_PASSWORD, { email: account.email });
      const code = await ctx.sink.otpFor(account.email, 2, 'password reset');
      assertError(
        await ctx.t.api.post(RESET_PASSWORD, resetBody(account.email, wrongCode(code), 'password123')),
        422,
        'VALIDATION_FAILED',
        { fields: ['password'] },
      );
      assertError(
        await ctx.t.api.post(RESET_PASSWORD, {
          ...resetBody(account.email, code),
          password_confirmation: 'something-else-9',
        }),
        422,
        'VALIDATION_FAILED',
        { fields: ['password_confirmation'] },
      );
      const row = await ctx.t.db
        .selectFrom('one_time_codes')
        .select('attempts')
        .where('email', '=', account.email)
        .where('purpose', '=', 'reset')
        .executeTakeFirstOrThrow();
      assert.equal(row.attempts, 0);
      assert.equal((await ctx.t.api.post(RESET_PASSWORD, resetBody(account.email, code))).status, 200);
    });

    it('counts the new password on its NFKC form: 8 characters that normalise to 4 are refused', async () => {
      const account = await newPartner(ctx, 'verified');
      await ctx.t.api.post(FORGOT_PASSWORD, { email: account.email });
      const code = await ctx.sink.otpFor(account.email, 2, 'password reset');
      const shrinks = 'e\u0301'.repeat(4);
      const refused = await ctx.t.api.post(RESET_PASSWORD, resetBody(account.email, code, shrinks));
      assertError(refused, 422, 'VALIDATION_FAILED', { fields: ['password'] });
      assert.deepEqual(refused.body.errors?.['password'], ['must be at least 8 characters']);
      assertError(
        await ctx.t.api.post(LOGIN, { email: account.email, password: shrinks }),
        401,
        'INVALID_CREDENTIALS',
      );
      const ligatures = '\uFB00'.repeat(4);
      assert.equal(
        (await ctx.t.api.post(RESET_PASSWORD, resetBody(account.email, code, ligatures))).status,
        200,
      );
      const login = await ctx.t.api.post(LOGIN, { email: account.email, password: 'ffffffff' });
      assert.equal(login.status, 200, `the password is its NFKC form: ${login.text}`);
    });

    it('kills a reset code after 5 wrong guesses and answers an expired one with OTP_EXPIRED', async () => {
      const account = await newPartner(ctx, 'verified');
      await ctx.t.api.post(FORGOT_PASSWORD, { email: account.email });
      const code = await ctx.sink.otpFor(account.email, 2, 'password reset');
      for (let guess = 1; guess <= 5; guess++) {
        assertError(
          await ctx.t.api.post(RESET_PASSWORD, resetBody(account.email, wrongCode(code, guess))),
          422,
          'OTP_INVALID',
        );
      }
      assertError(
        await ctx.t.api.post(RESET_PASSWORD, resetBody(account.email, code)),
        429,
        'OTP_ATTEMPTS_EXCEEDED',
      );

      ctx.t.clock.advance(61_000);
      await ctx.t.api.post(FORGOT_PASSWORD, { email: account.email });
      const second = await ctx.sink.otpFor(account.email, 3, 'password reset');
      ctx.t.clock.advance(10 * 60_000 + 1);
      assertError(await ctx.t.api.post(RESET_PASSWORD, resetBody(account.email, second)), 422, 'OTP_EXPIRED');
    });

    it('answers an unknown address exactly like a registered one, 6th wrong code included', async () => {
      const account = await newPartner(ctx, 'verified');
      const unknown = uniqueEmail('nobody');
      await ctx.t.api.post(FORGOT_PASSWORD, { email: account.email });
      await ctx.t.api.post(FORGOT_PASSWORD, { email: unknown });
      const code = await ctx.sink.otpFor(account.email, 2, 'password reset');
      const answers = { known: [] as string[], unknown: [] as string[] };
      for (let guess = 1; guess <= 6; guess++) {
        for (const [who, email] of [
          ['known', account.email],
          ['unknown', unknown],
        ] as const) {
          const response = await ctx.t.api.post(RESET_PASSWORD, resetBody(email, wrongCode(code, guess)));
          answers[who].push(`${response.status} ${response.body.error_code} ${response.body.message}`);
        }
      }
      assert.deepEqual(answers.unknown, answers.known);
      assert.match(answers.unknown[5]!, /^429 OTP_ATTEMPTS_EXCEEDED/);
      assert.match(answers.unknown[0]!, /^422 OTP_INVALID/);
    });

    it('allows one forgot request a minute per address, known or not (429 with Retry-After)', async () => {
      for (const email of [(await newPartner(ctx, 'verified')).email, uniqueEmail('nobody')]) {
        assert.equal((await ctx.t.api.post(FORGOT_PASSWORD, { email })).status, 200);
        const again = await ctx.t.api.post(FORGOT_PASSWORD, { email });
        assertError(again, 429, 'RATE_LIMITED');
        assert.ok(retryAfterSeconds(again) <= 60);
      }
    });
  });
}
