import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError, retryAfterSeconds } from '../support/assertions.js';
import { uniqueEmail } from '../support/factories.js';
import { newPartner } from '../support/partners.js';
import { RESEND_OTP, VERIFY_OTP } from '../support/paths.js';
import { auditActions } from '../support/records.js';

const RESEND_MESSAGE_OK = (body: { status: string; message: string; data?: unknown }) => {
  assert.equal(body.status, 'success');
  assert.equal(body.data, undefined, 'resend-otp returns no data');
  return body.message;
};

for (const dialect of DIALECTS) {
  describe(`POST /client/onboarding/resend-otp [${dialect.name}]`, { skip: dialect.skip }, () => {
    const ctx = useApp(dialect.name);

    it('answers 200 with the same message for unknown, unverified and verified e-mails, mailing only the unverified', async () => {
      const unverified = await newPartner(ctx, 'registered');
      const verified = await newPartner(ctx, 'verified');
      const unknown = uniqueEmail('nobody');

      const responses = [];
      for (const email of [unknown, verified.email, unverified.email]) {
        const response = await ctx.t.api.post(RESEND_OTP, { email });
        assert.equal(response.status, 200, `${email}: ${response.text}`);
        responses.push(response);
      }
      const messages = responses.map((r) => RESEND_MESSAGE_OK(r.body));
      assert.equal(new Set(messages).size, 1, messages.join(' | '));
      assert.deepEqual(responses[0]!.body, responses[2]!.body);

      // The unverified account's new mail was asked for last; once it is in, the others would be too.
      const fresh = await ctx.sink.otpFor(unverified.email, 2);
      assert.equal(ctx.sink.mailsTo(verified.email).length, 1, 'only the registration mail');
      assert.equal(ctx.sink.mailsTo(unknown).length, 0);
      assert.equal((await auditActions(ctx.t, verified.companyId, 'account.otp_resent')).length, 0);
      assert.equal((await auditActions(ctx.t, unverified.companyId, 'account.otp_resent')).length, 1);
      // Every address gets the same database work, but only an unverified account's code is e-mailed.
      const queued = await ctx.t.db
        .selectFrom('mail_outbox')
        .select('recipient')
        .where('recipient', 'in', [verified.email, unknown])
        .execute();
      assert.deepEqual(
        queued.map((row) => row.recipient),
        [verified.email],
        'only the registration mail of the verified account is queued',
      );

      const response = await ctx.t.api.post(VERIFY_OTP, { email: unverified.email, otp: fresh });
      assert.equal(response.status, 200, response.text);
    });

    it('returns 200 for the first resend right after registering (the registration mail does not count)', async () => {
      const account = await newPartner(ctx, 'registered');
      const response = await ctx.t.api.post(RESEND_OTP, { email: account.email });
      assert.equal(response.status, 200, response.text);
      await ctx.sink.waitForMail(account.email, 2);
    });

    it('returns 429 RATE_LIMITED with Retry-After for a second resend within a minute', async () => {
      const account = await newPartner(ctx, 'registered');
      const first = await ctx.t.api.post(RESEND_OTP, { email: account.email });
      assert.equal(first.status, 200, first.text);
      const second = await ctx.t.api.post(RESEND_OTP, { email: account.email });
      assertError(second, 429, 'RATE_LIMITED');
      const seconds = retryAfterSeconds(second);
      assert.ok(seconds <= 60, `Retry-After ${seconds}`);

      ctx.t.clock.advance(30_000);
      const later = await ctx.t.api.post(RESEND_OTP, { email: account.email });
      assertError(later, 429, 'RATE_LIMITED');
      assert.ok(retryAfterSeconds(later) <= 30, `Retry-After ${later.headers.get('retry-after')} after 30 s`);

      await ctx.sink.waitForMail(account.email, 2);
      assert.equal(ctx.sink.mailsTo(account.email).length, 2, 'the refused resends sent nothing');
    });

    it('counts the minute per address whatever its letter case', async () => {
      const account = await newPartner(ctx, 'registered');
      const first = await ctx.t.api.post(RESEND_OTP, { email: account.email });
      assert.equal(first.status, 200, first.text);
      const shouted = await ctx.t.api.post(RESEND_OTP, { email: ` ${account.email.toUpperCase()} ` });
      assertError(shouted, 429, 'RATE_LIMITED');
    });

    it('returns 429 RATE_LIMITED with Retry-After for a second resend to an unknown e-mail too', async () => {
      const email = uniqueEmail('nobody');
      const first = await ctx.t.api.post(RESEND_OTP, { email });
      assert.equal(first.status, 200, first.text);
      const second = await ctx.t.api.post(RESEND_OTP, { email });
      assertError(second, 429, 'RATE_LIMITED');
      assert.ok(retryAfterSeconds(second) <= 60);
    });

    it('allows a resend again once the minute has passed, and the newest code works', async () => {
      const account = await newPartner(ctx, 'registered');
      assert.equal((await ctx.t.api.post(RESEND_OTP, { email: account.email })).status, 200);
      await ctx.sink.waitForMail(account.email, 2);
      ctx.t.clock.advance(60_000);
      const again = await ctx.t.api.post(RESEND_OTP, { email: account.email });
      assert.equal(again.status, 200, again.text);
      const newest = await ctx.sink.otpFor(account.email, 3);
      const response = await ctx.t.api.post(VERIFY_OTP, { email: account.email, otp: newest });
      assert.equal(response.status, 200, response.text);
    });

    it('limits each address on its own: another e-mail is not throttled', async () => {
      const first = await newPartner(ctx, 'registered');
      const second = await newPartner(ctx, 'registered');
      assert.equal((await ctx.t.api.post(RESEND_OTP, { email: first.email })).status, 200);
      const other = await ctx.t.api.post(RESEND_OTP, { email: second.email });
      assert.equal(other.status, 200, other.text);
    });

    it('lets only one of 10 concurrent resends for one address through', async () => {
      const account = await newPartner(ctx, 'registered');
      const responses = await Promise.all(
        Array.from({ length: 10 }, () => ctx.t.api.post(RESEND_OTP, { email: account.email })),
      );
      const statuses = responses.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 200).length, 1, statuses.join(','));
      assert.equal(statuses.filter((s) => s === 429).length, 9, statuses.join(','));
      await ctx.sink.waitForMail(account.email, 2);
      assert.equal((await auditActions(ctx.t, account.companyId, 'account.otp_resent')).length, 1);
    });

    it('returns 422 naming email when it is missing or malformed', async () => {
      for (const email of [undefined, '', '  ', 'not-an-email', 42, null, ['a@example.com']]) {
        const response = await ctx.t.api.post(RESEND_OTP, email === undefined ? {} : { email });
        assertError(response, 422, 'VALIDATION_FAILED', { fields: ['email'] });
      }
    });
  });
}
