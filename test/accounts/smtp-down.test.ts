import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { eventually, RESEND_OTP, register, VERIFY_OTP } from '../support/account-flows.js';
import { createTestApp, DIALECTS, type TestApp } from '../support/app.js';
import { freePort, SmtpSink } from '../support/smtp-sink.js';

for (const dialect of DIALECTS) {
  describe(`registration while the mail server is down [${dialect.name}]`, { skip: dialect.skip }, () => {
    let t: TestApp | undefined;
    let sink: SmtpSink | undefined;
    afterEach(async () => {
      await t?.close();
      await sink?.stop();
      t = undefined;
      sink = undefined;
    });

    /** An app whose SMTP_URL points at a loopback port nothing listens on (yet). */
    const appWithDeadSmtp = async () => {
      const port = await freePort();
      t = await createTestApp(dialect.name, { env: { SMTP_URL: `smtp://127.0.0.1:${port}` } });
      return { t, port };
    };

    it('still creates the account (201), and a resend once the server is back delivers a working code', async () => {
      const { t, port } = await appWithDeadSmtp();
      const account = await register(t);
      assert.equal(account.response.body.status, 'success');
      const row = await t.db
        .selectFrom('partners')
        .select(['id', 'verified_at'])
        .where('email', '=', account.email)
        .executeTakeFirst();
      assert.equal(row?.id, account.companyId);
      assert.equal(row?.verified_at, null);

      sink = await new SmtpSink().start(port);
      const resend = await t.api.post(RESEND_OTP, { email: account.email });
      assert.equal(resend.status, 200, resend.text);
      const otp = await sink.otpFor(account.email);
      const verified = await t.api.post(VERIFY_OTP, { email: account.email, otp });
      assert.equal(verified.status, 200, verified.text);
    });

    it('does not use up the minute when a background resend fails', async () => {
      const { t, port } = await appWithDeadSmtp();
      const account = await register(t);
      const failing = await t.api.post(RESEND_OTP, { email: account.email });
      assert.equal(failing.status, 200, failing.text);
      // The send runs after the response; wait until its failure has been handled.
      await eventually(
        () => t.logs.some((line) => line.includes('background e-mail failed')),
        'the failed background send to be logged',
      );

      sink = await new SmtpSink().start(port);
      const retry = await t.api.post(RESEND_OTP, { email: account.email });
      assert.equal(retry.status, 200, `the failed send must not count: ${retry.text}`);
      const otp = await sink.otpFor(account.email);
      const verified = await t.api.post(VERIFY_OTP, { email: account.email, otp });
      assert.equal(verified.status, 200, verified.text);
    });

    it('still counts the minute after a resend that was delivered', async () => {
      const { t, port } = await appWithDeadSmtp();
      const account = await register(t);
      sink = await new SmtpSink().start(port);
      assert.equal((await t.api.post(RESEND_OTP, { email: account.email })).status, 200);
      await sink.waitForMail(account.email);
      const again = await t.api.post(RESEND_OTP, { email: account.email });
      assert.equal(again.status, 429, again.text);
      assert.equal(again.body.error_code, 'RATE_LIMITED');
    });
  });
}
