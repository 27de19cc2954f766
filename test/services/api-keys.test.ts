import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { approvePartner } from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError, ISO_INSTANT, UUID } from '../support/assertions.js';
import { customerBody, form, PNG_BYTES, representativeFields } from '../support/factories.js';
import { completeOnboarding } from '../support/onboarding.js';
import { createAccount, createApiKey, newPartner, type PartnerAt } from '../support/partners.js';
import {
  API_KEYS,
  apiKeyUrl,
  BUSINESS_INFO,
  CREATE_ACCOUNT,
  DOCUMENTS,
  ENVIRONMENT,
  LOGOUT,
  REPRESENTATIVE,
  SUBMIT,
  TEAM,
  VIRTUAL_ACCOUNTS,
} from '../support/paths.js';
import { auditActions, columnsContaining, virtualAccountIds } from '../support/records.js';

for (const dialect of DIALECTS) {
  describe(`API keys [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);
    let a: PartnerAt<'sandbox'>;
    let b: PartnerAt<'sandbox'>;
    before(async () => {
      a = await newPartner(suite, 'sandbox');
      b = await newPartner(suite, 'sandbox');
    });

    it('creates a sandbox key shown once: 201 with id, name, environment, key (sk_sandbox_ + 256 bits), last4, created_at', async () => {
      const { t } = suite;
      const response = await t.api.post(
        API_KEYS,
        { name: 'payments-backend', environment: 'sandbox' },
        { token: a.token },
      );
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.status, 'success');
      const data = response.body.data;
      assert.match(data.id, UUID);
      assert.equal(data.name, 'payments-backend');
      assert.equal(data.environment, 'sandbox');
      assert.match(data.key, /^sk_sandbox_[A-Za-z0-9_-]{43}$/);
      assert.equal(Buffer.from(data.key.slice('sk_sandbox_'.length), 'base64url').length, 32);
      assert.equal(data.last4, data.key.slice(-4));
      assert.match(data.created_at, ISO_INSTANT);

      const other = await createApiKey(t, a.token, 'sandbox', 'payments-backend');
      assert.notEqual(other.key, data.key);
      assert.notEqual(other.id, data.id);

      const used = await t.api.get(VIRTUAL_ACCOUNTS, { token: data.key });
      assert.equal(used.status, 200, used.text);
    });

    it('stores only a hash of the key: no column of any table holds it', async () => {
      const { t } = suite;
      const created = await createApiKey(t, a.token, 'sandbox');
      const row = await t.db
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow();
      assert.notEqual(row.key_hash, created.key);
      assert.equal(row.last4, created.key.slice(-4));
      assert.equal(row.revoked_at, null);
      for (const value of Object.values(row)) {
        assert.ok(!String(value).includes(created.key), 'the api_keys row holds the key');
      }
      const secret = created.key.slice('sk_sandbox_'.length);
      assert.deepEqual(await columnsContaining(suite, created.key), []);
      assert.deepEqual(await columnsContaining(suite, secret), []);
    });

    it('lists keys with last4 and status but never the key, paginated by cursor', async () => {
      const { t } = suite;
      const owner = await newPartner(suite, 'sandbox');
      const keys = [owner.sandboxKeyId];
      const secrets = [owner.sandboxKey];
      for (let index = 0; index < 4; index++) {
        const created = await createApiKey(t, owner.token, 'sandbox', `key-${index}`);
        keys.push(created.id);
        secrets.push(created.key);
      }

      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
        const page = await t.api.get(`${API_KEYS}${query}`, { token: owner.token });
        assert.equal(page.status, 200, page.text);
        for (const secret of secrets) assert.ok(!page.text.includes(secret), 'a listed page shows a key');
        for (const item of page.body.data.items) {
          assert.equal(item.key, undefined);
          assert.equal(item.key_hash, undefined);
          assert.match(item.last4, /^[A-Za-z0-9_-]{4}$/);
          assert.equal(item.status, 'active');
          assert.equal(item.environment, 'sandbox');
          assert.equal(item.revoked_at, null);
          seen.push(item.id);
        }
        cursor = page.body.data.next_cursor;
        pages++;
      } while (cursor !== null && pages < 10);
      assert.equal(pages, 3);
      assert.deepEqual([...seen].sort(), [...keys].sort());
      assert.equal(new Set(seen).size, keys.length);

      const byId = new Map(keys.map((id, index) => [id, secrets[index]!]));
      const all = await t.api.get(`${API_KEYS}?limit=100`, { token: owner.token });
      for (const item of all.body.data.items) assert.equal(item.last4, byId.get(item.id)!.slice(-4));

      assertError(
        await t.api.get(`${API_KEYS}?cursor=not-a-cursor`, { token: owner.token }),
        422,
        'VALIDATION_FAILED',
        { fields: ['cursor'] },
      );
      assertError(await t.api.get(`${API_KEYS}?limit=0`, { token: owner.token }), 422, 'VALIDATION_FAILED', {
        fields: ['limit'],
      });
      assertError(
        await t.api.get(`${API_KEYS}?limit=101`, { token: owner.token }),
        422,
        'VALIDATION_FAILED',
        { fields: ['limit'] },
      );
    });

    it('refuses at once a key revoked by another instance after this one verified it: 401 on create whatever the body, nothing written', async () => {
      const { t } = suite;
      const partner = await newPartner(suite, 'sandbox');
      const token = partner.sandboxKey;
      const first = await createAccount(t, token);
      // Written as another instance would: this one still counts the key among those it verified.
      await t.db
        .updateTable('api_keys')
        .set({ revoked_at: t.clock.now() })
        .where('id', '=', partner.sandboxKeyId)
        .execute();

      assertError(await t.api.post(CREATE_ACCOUNT, customerBody(), { token }), 401, 'UNAUTHENTICATED');
      // Neither a body that fails validation (422) nor an e-mail that has an account (409) tells more.
      assertError(
        await t.api.post(CREATE_ACCOUNT, customerBody({ email: 'not-an-email' }), { token }),
        401,
        'UNAUTHENTICATED',
      );
      assertError(
        await t.api.post(CREATE_ACCOUNT, customerBody({ email: first.customer.email }), { token }),
        401,
        'UNAUTHENTICATED',
      );
      assert.deepEqual(await virtualAccountIds(t, partner.companyId), [first.id]);
      assert.equal((await auditActions(t, partner.companyId, 'virtual_account.created')).length, 1);
    });

    it('revokes a key (200) after which it gets 401 UNAUTHENTICATED on /services/*, and audits both events', async () => {
      const { t } = suite;
      const created = await createApiKey(t, a.token, 'sandbox', 'to-revoke');
      assert.equal((await t.api.get(TEAM, { token: created.key })).status, 200);

      const revoked = await t.api.delete(apiKeyUrl(created.id), { token: a.token });
      assert.equal(revoked.status, 200, revoked.text);
      assert.equal(revoked.body.data.id, created.id);
      assert.equal(revoked.body.data.status, 'revoked');
      assert.match(revoked.body.data.revoked_at, ISO_INSTANT);
      assert.ok(!revoked.text.includes(created.key));

      assertError(await t.api.get(TEAM, { token: created.key }), 401, 'UNAUTHENTICATED');
      assertError(await t.api.get(VIRTUAL_ACCOUNTS, { token: created.key }), 401, 'UNAUTHENTICATED');
      assertError(
        await t.api.post(CREATE_ACCOUNT, customerBody(), { token: created.key }),
        401,
        'UNAUTHENTICATED',
      );
      assert.deepEqual(await virtualAccountIds(t, a.companyId), []);

      const row = await t.db
        .selectFrom('api_keys')
        .select('revoked_at')
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow();
      assert.notEqual(row.revoked_at, null);
      const listed = await t.api.get(`${API_KEYS}?limit=100`, { token: a.token });
      const item = listed.body.data.items.find((entry: { id: string }) => entry.id === created.id);
      assert.equal(item.status, 'revoked');

      const events = await t.db
        .selectFrom('audit_events')
        .select(['action', 'partner_id', 'metadata'])
        .where('target_id', '=', created.id)
        .execute();
      const actions = events.map((event) => event.action).sort();
      assert.deepEqual(actions, ['api_key.created', 'api_key.revoked']);
      for (const event of events) {
        assert.equal(event.partner_id, a.companyId);
        assert.ok(!String(event.metadata).includes(created.key));
      }
      // The other keys of the partner keep working.
      assert.equal((await t.api.get(TEAM, { token: a.sandboxKey })).status, 200);
    });

    it("answers 404 for revoking another partner's key, an unknown id or a malformed id, and the key keeps working", async () => {
      const { t } = suite;
      assertError(await t.api.delete(apiKeyUrl(a.sandboxKeyId), { token: b.token }), 404, 'NOT_FOUND');
      assert.equal((await t.api.get(TEAM, { token: a.sandboxKey })).status, 200);
      const row = await t.db
        .selectFrom('api_keys')
        .select('revoked_at')
        .where('id', '=', a.sandboxKeyId)
        .executeTakeFirstOrThrow();
      assert.equal(row.revoked_at, null);
      const revokedEvents = await t.db
        .selectFrom('audit_events')
        .select('id')
        .where('target_id', '=', a.sandboxKeyId)
        .where('action', '=', 'api_key.revoked')
        .execute();
      assert.equal(revokedEvents.length, 0);

      assertError(
        await t.api.delete(`${API_KEYS}/0190f0e4-7a2b-7c3d-8e4f-5a6b7c8d9e0f`, { token: a.token }),
        404,
        'NOT_FOUND',
      );
      assertError(await t.api.delete(`${API_KEYS}/not-a-uuid`, { token: a.token }), 404, 'NOT_FOUND');
    });

    it('refuses a live key before approval (403 ONBOARDING_NOT_APPROVED) and issues sk_live_ after', async () => {
      const { t, sink } = suite;
      const partner = await newPartner({ t, sink }, 'signed-in');
      assertError(
        await t.api.post(API_KEYS, { name: 'prod', environment: 'live' }, { token: partner.token }),
        403,
        'ONBOARDING_NOT_APPROVED',
      );
      await completeOnboarding(t, partner.token);
      assert.equal((await t.api.post(SUBMIT, undefined, { token: partner.token })).status, 200);
      assertError(
        await t.api.post(API_KEYS, { name: 'prod', environment: 'live' }, { token: partner.token }),
        403,
        'ONBOARDING_NOT_APPROVED',
      );
      const keyRows = await t.db
        .selectFrom('api_keys')
        .select('environment')
        .where('partner_id', '=', partner.companyId)
        .execute();
      assert.deepEqual(keyRows, []);

      await approvePartner(t, partner.companyId);
      const live = await t.api.post(
        API_KEYS,
        { name: 'prod', environment: 'live' },
        { token: partner.token },
      );
      assert.equal(live.status, 201, live.text);
      assert.equal(live.body.data.environment, 'live');
      assert.match(live.body.data.key, /^sk_live_[A-Za-z0-9_-]{43}$/);

      const account = await createAccount(t, live.body.data.key);
      assert.equal(account.environment, 'live');
    });

    it('refuses an API key with 403 FORBIDDEN on every /client/onboarding/* endpoint and on key management', async () => {
      const { t } = suite;
      const token = a.sandboxKey;
      const attempts = [
        t.api.get(BUSINESS_INFO, { token }),
        t.api.put(BUSINESS_INFO, { business_type: 'limited_liability' }, { token }),
        t.api.request('POST', REPRESENTATIVE, {
          token,
          body: form(representativeFields(), {
            id_file: { bytes: PNG_BYTES, name: 'id.png', type: 'image/png' },
          }),
        }),
        t.api.request('POST', DOCUMENTS, {
          token,
          body: form({ document_type: 'memart', file_url: 'https://files.acme.ng/memart.pdf' }),
        }),
        t.api.post(SUBMIT, undefined, { token }),
        t.api.put(ENVIRONMENT, { environment: 'sandbox' }, { token }),
        t.api.post(LOGOUT, undefined, { token }),
        t.api.get(API_KEYS, { token }),
        t.api.post(API_KEYS, { name: 'minted-by-a-key', environment: 'sandbox' }, { token }),
        t.api.delete(apiKeyUrl(a.sandboxKeyId), { token }),
      ];
      for (const response of await Promise.all(attempts)) assertError(response, 403, 'FORBIDDEN');

      const keys = await t.db
        .selectFrom('api_keys')
        .select(['name', 'revoked_at'])
        .where('partner_id', '=', a.companyId)
        .execute();
      assert.ok(!keys.some((key) => key.name === 'minted-by-a-key'));
      assert.ok(keys.every((key) => key.name === 'to-revoke' || key.revoked_at === null));
      // Nothing the dashboard endpoints do happened: no onboarding change, KYC check, switch or logout.
      const dashboardEvents = await t.db
        .selectFrom('audit_events')
        .select('action')
        .where('partner_id', '=', a.companyId)
        .where((eb) =>
          eb.or([
            eb('action', 'like', 'onboarding.%'),
            eb('action', 'like', 'kyc.%'),
            eb('action', 'in', ['session.environment_switched', 'account.logout']),
          ]),
        )
        .execute();
      assert.deepEqual(dashboardEvents, []);
      const profile = await t.api.get(BUSINESS_INFO, { token: a.token });
      assert.equal(profile.status, 200, 'the session survived the logout attempt');
      assert.equal(profile.body.data.representative, null);
      assert.equal(profile.body.data.business_type, null);
      // The key still works where it belongs.
      assert.equal((await t.api.get(TEAM, { token })).status, 200);
    });

    it('answers 401 UNAUTHENTICATED for malformed, unknown, altered or wrong-environment keys', async () => {
      const { t } = suite;
      const secret = a.sandboxKey.slice('sk_sandbox_'.length);
      const lastChar = secret.at(-1) === 'A' ? 'B' : 'A';
      const candidates = [
        'sk_sandbox_xxx',
        'sk_sandbox_',
        `sk_sandbox_${randomBytes(32).toString('base64url')}`,
        `sk_live_${randomBytes(32).toString('base64url')}`,
        `sk_sandbox_${secret.slice(0, -1)}${lastChar}`,
        `sk_live_${secret}`,
        `${a.sandboxKey}x`,
      ];
      for (const token of candidates) {
        const refused = await t.api.get(VIRTUAL_ACCOUNTS, { token });
        assertError(refused, 401, 'UNAUTHENTICATED');
        assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="baas", error="invalid_token"');
      }
      const anonymous = await t.api.get(VIRTUAL_ACCOUNTS);
      assertError(anonymous, 401, 'UNAUTHENTICATED');
      assert.equal(anonymous.headers.get('www-authenticate'), 'Bearer realm="baas"');
    });

    it('ignores unknown body fields: a client cannot choose the key or the owner', async () => {
      const { t } = suite;
      const chosen = `sk_sandbox_${'A'.repeat(43)}`;
      const response = await t.api.post(
        API_KEYS,
        {
          name: 'extra',
          environment: 'sandbox',
          key: chosen,
          id: randomUUID(),
          partner_id: b.companyId,
        },
        { token: a.token },
      );
      assert.equal(response.status, 201, response.text);
      assert.notEqual(response.body.data.key, chosen);
      const row = await t.db
        .selectFrom('api_keys')
        .select(['partner_id', 'id'])
        .where('id', '=', response.body.data.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.partner_id, a.companyId);
      assertError(await t.api.get(VIRTUAL_ACCOUNTS, { token: chosen }), 401, 'UNAUTHENTICATED');
    });

    it('validates name and environment with 422 VALIDATION_FAILED naming the field', async () => {
      const { t } = suite;
      const token = a.token;
      const before = await t.db
        .selectFrom('api_keys')
        .select('id')
        .where('partner_id', '=', a.companyId)
        .execute();
      assertError(
        await t.api.post(API_KEYS, { environment: 'sandbox' }, { token }),
        422,
        'VALIDATION_FAILED',
        { fields: ['name'] },
      );
      assertError(
        await t.api.post(API_KEYS, { name: '   ', environment: 'sandbox' }, { token }),
        422,
        'VALIDATION_FAILED',
        { fields: ['name'] },
      );
      assertError(
        await t.api.post(API_KEYS, { name: 'x'.repeat(101), environment: 'sandbox' }, { token }),
        422,
        'VALIDATION_FAILED',
        { fields: ['name'] },
      );
      assertError(
        await t.api.post(API_KEYS, { name: 42, environment: 'sandbox' }, { token }),
        422,
        'VALIDATION_FAILED',
        { fields: ['name'] },
      );
      assertError(await t.api.post(API_KEYS, { name: 'ci' }, { token }), 422, 'VALIDATION_FAILED', {
        fields: ['environment'],
      });
      assertError(
        await t.api.post(API_KEYS, { name: 'ci', environment: 'production' }, { token }),
        422,
        'VALIDATION_FAILED',
        { fields: ['environment'] },
      );
      assertError(await t.api.post(API_KEYS, {}, { token }), 422, 'VALIDATION_FAILED', {
        fields: ['name', 'environment'],
      });
      const after = await t.db
        .selectFrom('api_keys')
        .select('id')
        .where('partner_id', '=', a.companyId)
        .execute();
      assert.equal(after.length, before.length);

      const longest = await t.api.post(
        API_KEYS,
        { name: ` ${'x'.repeat(100)} `, environment: 'sandbox' },
        { token },
      );
      assert.equal(longest.status, 201, longest.text);
      assert.equal(longest.body.data.name, 'x'.repeat(100));
    });
  });
}
