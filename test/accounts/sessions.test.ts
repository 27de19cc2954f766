import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { sha256 } from '../../src/platform/crypto/tokens.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { newPartner } from '../support/partners.js';
import { API_KEYS, BUSINESS_INFO, LOGIN, LOGOUT } from '../support/paths.js';
import { auditActions, sessionsOf } from '../support/records.js';

const SESSION_TTL_MS = 7200 * 1000;

for (const dialect of DIALECTS) {
  describe(`session tokens and logout [${dialect.name}]`, { skip: dialect.skip }, () => {
    const ctx = useApp(dialect.name);

    it('lets a session token read GET /client/onboarding/business-info', async () => {
      const partner = await newPartner(ctx, 'signed-in');
      const response = await ctx.t.api.get(BUSINESS_INFO, { token: partner.token });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.data.company_id, partner.companyId);
      assert.equal(response.body.data.email, partner.email);
      assert.equal(response.body.data.environment, 'sandbox');
    });

    it('takes a session token that happens to start with sk_ for a session, not an API key', async () => {
      // One random token in 262,144 starts with "sk_": such a session, as a login would have stored it.
      const partner = await newPartner(ctx, 'signed-in');
      const [login] = await sessionsOf(ctx.t, partner.companyId);
      const token = `sk_${randomBytes(32).toString('base64url').slice(3)}`;
      await ctx.t.db
        .insertInto('sessions')
        .values({
          id: `${login!.id}b`,
          token_hash: sha256(token),
          partner_id: partner.companyId,
          user_id: login!.user_id,
          environment: 'sandbox',
          created_at: login!.created_at,
          expires_at: login!.expires_at,
        })
        .execute();
      const response = await ctx.t.api.get(BUSINESS_INFO, { token });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.data.company_id, partner.companyId);
      const keys = await ctx.t.api.get(API_KEYS, { token });
      assert.equal(keys.status, 200, keys.text);
    });

    it('returns 401 UNAUTHENTICATED for a missing, empty, malformed or unknown credential', async () => {
      const partner = await newPartner(ctx, 'signed-in');
      // With the RFC 6750 (section 3) challenge each answer carries: no bearer credential, a malformed
      // one, or a well-formed one that is not accepted.
      const plain = 'Bearer realm="baas"';
      const malformed = 'Bearer realm="baas", error="invalid_request"';
      const refused = 'Bearer realm="baas", error="invalid_token"';
      const headerCases: Array<[string, Record<string, string>, string]> = [
        ['no Authorization header', {}, plain],
        ['an empty header', { authorization: '' }, plain],
        ['"Bearer" with no token', { authorization: 'Bearer' }, malformed],
        ['"Bearer " with no token', { authorization: 'Bearer ' }, malformed],
        ['a garbage token', { authorization: 'Bearer garbage-token-that-was-never-issued' }, refused],
        ['Basic credentials', { authorization: 'Basic xyz' }, plain],
        ['Basic with the real token', { authorization: `Basic ${partner.token}` }, plain],
        ['the token without a scheme', { authorization: partner.token }, plain],
        ['a token one character short', { authorization: `Bearer ${partner.token.slice(0, -1)}` }, refused],
        ['a token with one character more', { authorization: `Bearer ${partner.token}A` }, refused],
        [
          'an API-key-shaped token',
          { authorization: 'Bearer sk_sandbox_0123456789abcdefghijklmnop' },
          refused,
        ],
        ['an oversized token', { authorization: `Bearer ${'a'.repeat(5000)}` }, malformed],
        ['two tokens', { authorization: `Bearer ${partner.token} ${partner.token}` }, malformed],
      ];
      for (const [label, headers, challenge] of headerCases) {
        const response = await ctx.t.api.get(BUSINESS_INFO, { headers });
        assert.equal(response.status, 401, `${label}: ${response.text}`);
        assertError(response, 401, 'UNAUTHENTICATED');
        assert.equal(response.headers.get('www-authenticate'), challenge, label);
      }
      // The real token still works: the refusals above were about the credentials, not the route.
      const ok = await ctx.t.api.get(BUSINESS_INFO, { token: partner.token });
      assert.equal(ok.status, 200, ok.text);
    });

    it('keeps a token valid shortly before 7200 seconds have passed', async () => {
      const partner = await newPartner(ctx, 'signed-in');
      ctx.t.clock.advance(SESSION_TTL_MS - 5_000);
      const response = await ctx.t.api.get(BUSINESS_INFO, { token: partner.token });
      assert.equal(response.status, 200, response.text);
    });

    it('returns 401 TOKEN_EXPIRED once 7200 seconds have passed, on reads and on logout', async () => {
      const partner = await newPartner(ctx, 'signed-in');
      ctx.t.clock.advance(SESSION_TTL_MS);
      const response = await ctx.t.api.get(BUSINESS_INFO, { token: partner.token });
      assertError(response, 401, 'TOKEN_EXPIRED');
      assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="baas", error="invalid_token"');
      const logout = await ctx.t.api.post(LOGOUT, undefined, { token: partner.token });
      assertError(logout, 401, 'TOKEN_EXPIRED');
      const fresh = await ctx.t.api.post(LOGIN, { email: partner.email, password: partner.password });
      assert.equal(fresh.status, 200, fresh.text);
      const again = await ctx.t.api.get(BUSINESS_INFO, { token: fresh.body.data.token });
      assert.equal(again.status, 200, again.text);
    });

    it('logs out with 200, after which the token gets 401 UNAUTHENTICATED', async () => {
      const partner = await newPartner(ctx, 'signed-in');
      const logout = await ctx.t.api.post(LOGOUT, undefined, { token: partner.token });
      assert.equal(logout.status, 200, logout.text);
      assert.equal(logout.body.status, 'success');
      const response = await ctx.t.api.get(BUSINESS_INFO, { token: partner.token });
      assertError(response, 401, 'UNAUTHENTICATED');
      const sessions = await sessionsOf(ctx.t, partner.companyId);
      assert.equal(sessions.length, 0);
      assert.equal((await auditActions(ctx.t, partner.companyId, 'account.logout')).length, 1);
    });

    it('returns 401 for a second logout with the same token', async () => {
      const partner = await newPartner(ctx, 'signed-in');
      assert.equal((await ctx.t.api.post(LOGOUT, undefined, { token: partner.token })).status, 200);
      const second = await ctx.t.api.post(LOGOUT, undefined, { token: partner.token });
      assertError(second, 401, 'UNAUTHENTICATED');
    });

    it('returns 401 UNAUTHENTICATED for a logout without a token', async () => {
      const response = await ctx.t.api.post(LOGOUT);
      assertError(response, 401, 'UNAUTHENTICATED');
    });

    it('revokes only the calling session', async () => {
      const account = await newPartner(ctx, 'verified');
      const login = () => ctx.t.api.post(LOGIN, { email: account.email, password: account.password });
      const [first, second] = await Promise.all([login(), login()]);
      const [kept, revoked] = [first!.body.data.token, second!.body.data.token];
      assert.equal((await ctx.t.api.post(LOGOUT, undefined, { token: revoked })).status, 200);
      assertError(await ctx.t.api.get(BUSINESS_INFO, { token: revoked }), 401, 'UNAUTHENTICATED');
      const response = await ctx.t.api.get(BUSINESS_INFO, { token: kept });
      assert.equal(response.status, 200, response.text);
    });

    it("leaves another partner's session working when one partner logs out", async () => {
      const alice = await newPartner(ctx, 'signed-in');
      const bob = await newPartner(ctx, 'signed-in');
      const profile = await ctx.t.api.get(BUSINESS_INFO, { token: bob.token });
      assert.equal(profile.body.data.company_id, bob.companyId);
      assert.equal((await ctx.t.api.post(LOGOUT, undefined, { token: alice.token })).status, 200);
      const stillBob = await ctx.t.api.get(BUSINESS_INFO, { token: bob.token });
      assert.equal(stillBob.status, 200, 'logging Alice out leaves Bob signed in');
      assert.equal(stillBob.body.data.company_id, bob.companyId);
    });
  });
}
