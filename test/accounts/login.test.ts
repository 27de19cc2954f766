import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import argon2 from 'argon2';
import { DIALECTS, type TestApp, useApp } from '../support/app.js';
import { assertError, retryAfterSeconds } from '../support/assertions.js';
import { uniqueEmail } from '../support/factories.js';
import { newPartner } from '../support/partners.js';
import { LOGIN } from '../support/paths.js';
import { auditActions, sessionsOf } from '../support/records.js';

const LOCK_WINDOW_MS = 15 * 60 * 1000;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** Stores, as the partner's password hash, what the argon2 package made of `password` with the earlier settings. */
async function storeArgon2PackageHash(t: Pick<TestApp, 'db'>, partnerId: number, password: string) {
  const hash = await argon2.hash(password, {
    type: argon2.argon2id,
    memoryCost: 19456,
    timeCost: 2,
    parallelism: 1,
  });
  await t.db
    .updateTable('partner_users')
    .set({ password_hash: hash })
    .where('partner_id', '=', partnerId)
    .execute();
}

for (const dialect of DIALECTS) {
  describe(`POST /client/onboarding/login [${dialect.name}]`, { skip: dialect.skip }, () => {
    const ctx = useApp(dialect.name);

    it('returns 200 {token, token_type: "Bearer", expires_in: 7200, environment: "sandbox"}', async () => {
      const account = await newPartner(ctx, 'verified');
      const response = await ctx.t.api.post(LOGIN, { email: account.email, password: account.password });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.status, 'success');
      const data = response.body.data;
      assert.deepEqual(Object.keys(data).sort(), ['environment', 'expires_in', 'token', 'token_type']);
      assert.equal(data.token_type, 'Bearer');
      assert.equal(data.expires_in, 7200);
      assert.equal(data.environment, 'sandbox');
      assert.equal(typeof data.token, 'string');
      // At least 256 bits: 43 characters of base64url, 64 of hex.
      assert.ok(data.token.length >= 43, `token of ${data.token.length} characters`);
      assert.match(data.token, /^[\x21-\x7e]+$/, 'a bearer token is printable ASCII');

      const second = await ctx.t.api.post(LOGIN, { email: account.email, password: account.password });
      assert.equal(second.status, 200, second.text);
      assert.notEqual(second.body.data.token, data.token, 'every login gets its own token');
    });

    it('stores only the SHA-256 hash of the session token', async () => {
      const account = await newPartner(ctx, 'verified');
      const response = await ctx.t.api.post(LOGIN, { email: account.email, password: account.password });
      const token: string = response.body.data.token;
      const sessions = await sessionsOf(ctx.t, account.companyId);
      assert.equal(sessions.length, 1);
      const session = sessions[0]!;
      const digests = (['hex', 'base64', 'base64url'] as const).map((encoding) =>
        createHash('sha256').update(token).digest(encoding),
      );
      assert.ok(
        digests.includes(session.token_hash),
        `token_hash ${session.token_hash} is not SHA-256(token)`,
      );
      assert.ok(!JSON.stringify(session).includes(token), 'the token itself is stored');
      assert.equal(session.environment, 'sandbox');
      assert.equal(session.expires_at - session.created_at, 7200 * 1000);
    });

    it('accepts the e-mail in another letter case with surrounding whitespace', async () => {
      const account = await newPartner(ctx, 'verified');
      const response = await ctx.t.api.post(LOGIN, {
        email: ` ${account.email.toUpperCase()} `,
        password: account.password,
      });
      assert.equal(response.status, 200, response.text);
    });

    it('returns 401 INVALID_CREDENTIALS with an identical body for an unknown e-mail and a wrong password', async () => {
      const account = await newPartner(ctx, 'verified');
      const wrongPassword = await ctx.t.api.post(LOGIN, {
        email: account.email,
        password: 'Not-The-Password-1',
      });
      const unknownEmail = await ctx.t.api.post(LOGIN, {
        email: uniqueEmail('nobody'),
        password: account.password,
      });
      assertError(wrongPassword, 401, 'INVALID_CREDENTIALS');
      assertError(unknownEmail, 401, 'INVALID_CREDENTIALS');
      assert.deepEqual(unknownEmail.body, wrongPassword.body);
      // A failed login is not a protected resource asking for a bearer token: no challenge.
      assert.equal(unknownEmail.headers.get('www-authenticate'), null);
      assert.equal(wrongPassword.headers.get('www-authenticate'), null);
    });

    it('treats the password as case- and whitespace-sensitive', async () => {
      const account = await newPartner(ctx, 'verified');
      for (const password of [
        account.password.toUpperCase(),
        ` ${account.password}`,
        account.password.slice(0, -1),
      ]) {
        const response = await ctx.t.api.post(LOGIN, { email: account.email, password });
        assertError(response, 401, 'INVALID_CREDENTIALS');
      }
    });

    it('treats a password as its Unicode NFKC form: composed and decomposed accents, full-width digits are one password', async () => {
      const typed = 'Caf\u00e9-Ledger-Sunrise-\uff14\uff12';
      const account = await newPartner(ctx, 'verified', {
        password: typed,
        password_confirmation: typed,
      });
      for (const variant of ['Cafe\u0301-Ledger-Sunrise-\uff14\uff12', 'Caf\u00e9-Ledger-Sunrise-42']) {
        const response = await ctx.t.api.post(LOGIN, { email: account.email, password: variant });
        assert.equal(response.status, 200, `${JSON.stringify(variant)}: ${response.text}`);
      }
      assertError(
        await ctx.t.api.post(LOGIN, { email: account.email, password: 'Cafe-Ledger-Sunrise-42' }),
        401,
        'INVALID_CREDENTIALS',
      );
    });

    it('verifies argon2id hashes made by the previous binding (the argon2 package), so no user must reset', async () => {
      const account = await newPartner(ctx, 'verified');
      await storeArgon2PackageHash(ctx.t, account.companyId, account.password);
      const response = await ctx.t.api.post(LOGIN, { email: account.email, password: account.password });
      assert.equal(response.status, 200, response.text);
      assertError(
        await ctx.t.api.post(LOGIN, { email: account.email, password: `${account.password}x` }),
        401,
        'INVALID_CREDENTIALS',
      );
    });

    it('still accepts a password hashed before normalisation, as it was typed', async () => {
      const typed = 'Cafe\u0301-Ledger-Sunrise-99';
      const account = await newPartner(ctx, 'verified');
      // An argon2id hash of the raw (not normalised) text, as stored before NFKC was introduced.
      await storeArgon2PackageHash(ctx.t, account.companyId, typed);
      const response = await ctx.t.api.post(LOGIN, { email: account.email, password: typed });
      assert.equal(response.status, 200, response.text);
    });

    it('returns 403 ACCOUNT_NOT_VERIFIED for an unverified account with the right password', async () => {
      const account = await newPartner(ctx, 'registered');
      const response = await ctx.t.api.post(LOGIN, { email: account.email, password: account.password });
      assertError(response, 403, 'ACCOUNT_NOT_VERIFIED');
      const sessions = await sessionsOf(ctx.t, account.companyId);
      assert.equal(sessions.length, 0);
    });

    it('returns 401 INVALID_CREDENTIALS for an unverified account with a wrong password', async () => {
      const account = await newPartner(ctx, 'registered');
      const response = await ctx.t.api.post(LOGIN, { email: account.email, password: 'Not-The-Password-1' });
      assertError(response, 401, 'INVALID_CREDENTIALS');
    });

    it('returns 422 naming the field for a missing, blank or non-string e-mail or password', async () => {
      const cases: Array<[string, Record<string, unknown>]> = [
        ['email', { password: 'whatever-password' }],
        ['email', { email: '   ', password: 'whatever-password' }],
        ['email', { email: 'not-an-email', password: 'whatever-password' }],
        ['email', { email: 42, password: 'whatever-password' }],
        ['password', { email: 'ada@example.com' }],
        ['password', { email: 'ada@example.com', password: '' }],
        ['password', { email: 'ada@example.com', password: 12345678 }],
        ['password', { email: 'ada@example.com', password: null }],
        ['password', { email: 'ada@example.com', password: ['x'] }],
      ];
      for (const [field, body] of cases) {
        const response = await ctx.t.api.post(LOGIN, body);
        assertError(response, 422, 'VALIDATION_FAILED', { fields: [field] });
      }
    });

    it('records audit events for a successful and a failed login', async () => {
      const account = await newPartner(ctx, 'verified');
      await ctx.t.api.post(LOGIN, { email: account.email, password: 'Not-The-Password-1' });
      const ok = await ctx.t.api.post(LOGIN, { email: account.email, password: account.password });
      assert.equal(ok.status, 200);
      const failed = await auditActions(ctx.t, account.companyId, 'account.login_failed');
      const succeeded = await auditActions(ctx.t, account.companyId, 'account.login');
      assert.equal(failed.length, 1);
      assert.equal(succeeded.length, 1);
      assert.equal(succeeded[0]!.request_id, ok.headers.get('x-request-id'));
      for (const event of [...failed, ...succeeded]) {
        assert.ok(!JSON.stringify(event).includes(account.password), 'no password in the audit trail');
        assert.ok(!JSON.stringify(event).includes(ok.body.data.token), 'no token in the audit trail');
      }
    });

    it('still lets the right password in after 9 failures', async () => {
      const account = await newPartner(ctx, 'verified');
      for (let i = 0; i < 9; i++) {
        const response = await ctx.t.api.post(LOGIN, {
          email: account.email,
          password: `Wrong-Password-${i}`,
        });
        assertError(response, 401, 'INVALID_CREDENTIALS');
      }
      const response = await ctx.t.api.post(LOGIN, { email: account.email, password: account.password });
      assert.equal(response.status, 200, response.text);
    });

    it('locks the e-mail for 15 minutes after 10 failures: 429 RATE_LIMITED with Retry-After, even with the right password', async () => {
      const account = await newPartner(ctx, 'verified');
      for (let i = 0; i < 10; i++) {
        const response = await ctx.t.api.post(LOGIN, {
          email: account.email,
          password: `Wrong-Password-${i}`,
        });
        assertError(response, 401, 'INVALID_CREDENTIALS');
      }
      const locked = await ctx.t.api.post(LOGIN, { email: account.email, password: account.password });
      assertError(locked, 429, 'RATE_LIMITED');
      const seconds = retryAfterSeconds(locked);
      assert.ok(seconds <= 900 && seconds > 850, `Retry-After ${seconds}`);

      const shouted = await ctx.t.api.post(LOGIN, {
        email: account.email.toUpperCase(),
        password: account.password,
      });
      assertError(shouted, 429, 'RATE_LIMITED');

      ctx.t.clock.advance(10 * 60 * 1000);
      const stillLocked = await ctx.t.api.post(LOGIN, { email: account.email, password: account.password });
      assertError(stillLocked, 429, 'RATE_LIMITED');
      assert.ok(
        retryAfterSeconds(stillLocked) <= 300,
        `Retry-After ${stillLocked.headers.get('retry-after')}`,
      );

      ctx.t.clock.advance(5 * 60 * 1000);
      const response = await ctx.t.api.post(LOGIN, { email: account.email, password: account.password });
      assert.equal(response.status, 200, response.text);
    });

    it('locks an unknown e-mail after 10 failures as well, and leaves other e-mails alone', async () => {
      const unknown = uniqueEmail('nobody');
      for (let i = 0; i < 10; i++) {
        const response = await ctx.t.api.post(LOGIN, { email: unknown, password: `Wrong-Password-${i}` });
        assertError(response, 401, 'INVALID_CREDENTIALS');
      }
      const locked = await ctx.t.api.post(LOGIN, { email: unknown, password: 'Wrong-Password-x' });
      assertError(locked, 429, 'RATE_LIMITED');
      assert.ok(retryAfterSeconds(locked) <= 900);

      const account = await newPartner(ctx, 'verified');
      const other = await ctx.t.api.post(LOGIN, { email: account.email, password: account.password });
      assert.equal(other.status, 200, other.text);

      ctx.t.clock.advance(LOCK_WINDOW_MS);
      const afterWindow = await ctx.t.api.post(LOGIN, { email: unknown, password: 'Wrong-Password-y' });
      assertError(afterWindow, 401, 'INVALID_CREDENTIALS');
    });

    it('compares at most 10 passwords when 20 wrong logins for one e-mail arrive at once', async () => {
      const account = await newPartner(ctx, 'verified');
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          ctx.t.api.post(LOGIN, { email: account.email, password: `Wrong-Password-${i}` }),
        ),
      );
      const compared = responses.filter((r) => r.body.error_code === 'INVALID_CREDENTIALS').length;
      const limited = responses.filter((r) => r.body.error_code === 'RATE_LIMITED').length;
      assert.equal(compared + limited, 20, responses.map((r) => r.status).join(','));
      assert.ok(compared <= 10, `${compared} password guesses were checked`);
    });

    it('takes about as long for an unknown e-mail as for a wrong password', async () => {
      const account = await newPartner(ctx, 'verified');
      const timed = async (body: Record<string, unknown>) => {
        const started = performance.now();
        const response = await ctx.t.api.post(LOGIN, body);
        const elapsed = performance.now() - started;
        assertError(response, 401, 'INVALID_CREDENTIALS');
        return elapsed;
      };
      // Warm-up: any lazily computed work (a dummy hash for unknown e-mails) is done once.
      await timed({ email: uniqueEmail('warmup'), password: 'Wrong-Password-0' });
      await timed({ email: account.email, password: 'Wrong-Password-0' });
      const measure = async () => {
        const unknown: number[] = [];
        const wrong: number[] = [];
        for (let i = 1; i <= 5; i++) {
          unknown.push(await timed({ email: uniqueEmail('nobody'), password: `Wrong-Password-${i}` }));
          wrong.push(await timed({ email: account.email, password: `Wrong-Password-${i}` }));
        }
        const [a, b] = [median(unknown), median(wrong)];
        return {
          ratio: Math.max(a, b) / Math.min(a, b),
          summary: `unknown ${a.toFixed(1)} ms, wrong ${b.toFixed(1)} ms`,
        };
      };
      let result = await measure();
      // One more round if another process stole the CPU: a real difference (no argon2id for unknown
      // e-mails) shows in both rounds. 4 + 2 * 5 failures stay under the lockout of 10.
      if (result.ratio > 2) {
        ctx.t.clock.advance(15 * 60 * 1000);
        result = await measure();
      }
      assert.ok(result.ratio <= 2, `median times differ by ${result.ratio.toFixed(2)}x: ${result.summary}`);
    });
  });
}
