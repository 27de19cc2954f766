import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError, retryAfterSeconds } from '../support/assertions.js';
import { registration, uniqueEmail, wrongCode } from '../support/factories.js';
import { newPartner } from '../support/partners.js';
import { FORGOT_PASSWORD, LOGIN, REGISTER, RESEND_OTP, VERIFY_OTP } from '../support/paths.js';

const MINUTE = 61_000;
const DAY = 24 * 60 * 60 * 1000;

for (const dialect of DIALECTS) {
  describe(`one-time codes: daily budget, enumeration, unverified accounts [${dialect.name}]`, {
    skip: dialect.skip,
  }, () => {
    const ctx = useApp(dialect.name);

    it('sends at most 10 codes (registration, resend, reset together) to one address in 24 hours, then 429 with Retry-After', async () => {
      const account = await newPartner(ctx, 'registered');
      const started = ctx.t.clock.now();
      for (let code = 2; code <= 10; code++) {
        // The outbox drops a code's mail once the code has expired (10 minutes of the app's clock),
        // so each mail goes out before the clock moves on.
        await ctx.sink.waitForMail(account.email, code - 1);
        ctx.t.clock.advance(MINUTE);
        const response = await ctx.t.api.post(code % 2 === 0 ? RESEND_OTP : FORGOT_PASSWORD, {
          email: account.email,
        });
        assert.equal(response.status, 200, `code ${code}: ${response.text}`);
      }
      ctx.t.clock.advance(MINUTE);
      for (const path of [RESEND_OTP, FORGOT_PASSWORD]) {
        const refused = await ctx.t.api.post(path, { email: account.email });
        assertError(refused, 429, 'RATE_LIMITED');
        const retryAfter = retryAfterSeconds(refused);
        const remaining = (started + DAY - ctx.t.clock.now()) / 1000;
        assert.ok(
          Math.abs(retryAfter - remaining) <= 2,
          `Retry-After ${retryAfter}, window ends in ${remaining}`,
        );
      }
      await ctx.sink.waitForMail(account.email, 10);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(ctx.sink.mailsTo(account.email).length, 10, 'the 11th code is never sent');

      // A day after the first code the budget is back.
      ctx.t.clock.advance(DAY);
      assert.equal((await ctx.t.api.post(RESEND_OTP, { email: account.email })).status, 200);
    });

    it('counts an unknown address the same way (the budget reveals nothing)', async () => {
      const email = uniqueEmail('nobody');
      for (let code = 1; code <= 10; code++) {
        const response = await ctx.t.api.post(code % 2 === 0 ? RESEND_OTP : FORGOT_PASSWORD, { email });
        assert.equal(response.status, 200, `code ${code}: ${response.text}`);
        ctx.t.clock.advance(MINUTE);
      }
      assertError(await ctx.t.api.post(RESEND_OTP, { email }), 429, 'RATE_LIMITED');
      // Registering the address now would be its 11th code.
      assertError(await ctx.t.api.post(REGISTER, registration({ email })), 429, 'RATE_LIMITED');
      const stored = await ctx.t.db.selectFrom('partners').select('id').where('email', '=', email).execute();
      assert.equal(stored.length, 0, 'a refused registration stores nothing');
    });

    it('answers verify-otp for an unknown address exactly like an unverified one: same codes, messages and 6th-guess 429', async () => {
      const account = await newPartner(ctx, 'registered');
      const unknown = uniqueEmail('nobody');
      const code = await ctx.sink.otpFor(account.email);
      const answers = { known: [] as string[], unknown: [] as string[] };
      for (let guess = 1; guess <= 7; guess++) {
        for (const [who, email] of [
          ['known', account.email],
          ['unknown', unknown],
        ] as const) {
          const response = await ctx.t.api.post(VERIFY_OTP, { email, otp: wrongCode(code, guess) });
          answers[who].push(`${response.status} ${response.body.error_code} ${response.body.message}`);
        }
      }
      assert.deepEqual(answers.unknown, answers.known);
      assert.match(answers.unknown[4]!, /^422 OTP_INVALID/);
      assert.match(answers.unknown[5]!, /^429 OTP_ATTEMPTS_EXCEEDED/);

      // A new code (resend) revives both the same way.
      ctx.t.clock.advance(MINUTE);
      for (const email of [account.email, unknown]) {
        assert.equal((await ctx.t.api.post(RESEND_OTP, { email })).status, 200);
        assertError(await ctx.t.api.post(VERIFY_OTP, { email, otp: wrongCode(code, 9) }), 422, 'OTP_INVALID');
      }
    });

    it('deletes an unverified account 24 hours after its last code, freeing the address', async () => {
      const account = await newPartner(ctx, 'registered');
      const resentLater = await newPartner(ctx, 'registered');
      ctx.t.clock.advance(12 * 60 * 60 * 1000);
      assert.equal((await ctx.t.api.post(RESEND_OTP, { email: resentLater.email })).status, 200);
      ctx.t.clock.advance(12 * 60 * 60 * 1000 + 1000);
      await ctx.t.app.housekeeping();

      const remaining = await ctx.t.db
        .selectFrom('partners')
        .select('email')
        .where('email', 'in', [account.email, resentLater.email])
        .execute();
      assert.deepEqual(
        remaining.map((row) => row.email),
        [resentLater.email],
        'only the account whose last code is 24 hours old goes',
      );
      assertError(
        await ctx.t.api.post(LOGIN, { email: account.email, password: account.password }),
        401,
        'INVALID_CREDENTIALS',
      );
      // The address can be registered again, by whoever owns it.
      const again = await ctx.t.api.post(REGISTER, registration({ email: account.email }));
      assert.equal(again.status, 201, again.text);
    });

    it('never deletes a verified account', async () => {
      const account = await newPartner(ctx, 'registered');
      const code = await ctx.sink.otpFor(account.email);
      assert.equal((await ctx.t.api.post(VERIFY_OTP, { email: account.email, otp: code })).status, 200);
      ctx.t.clock.advance(3 * DAY);
      await ctx.t.app.housekeeping();
      const login = await ctx.t.api.post(LOGIN, { email: account.email, password: account.password });
      assert.equal(login.status, 200, login.text);
    });
  });
}
