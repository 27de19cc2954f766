import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { nuban } from '../../src/modules/virtual-accounts/nuban.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { memberBody } from '../support/factories.js';
import type { ApiResponse } from '../support/http.js';
import { createAccount, newPartner, type PartnerAt } from '../support/partners.js';
import {
  API_KEYS,
  accountUrl,
  apiKeyUrl,
  creditUrl,
  memberUrl,
  TEAM,
  transactionsUrl,
  VIRTUAL_ACCOUNTS,
} from '../support/paths.js';

interface Credential {
  label: string;
  token: string;
  kind: 'session' | 'api_key';
  environment: 'sandbox' | 'live';
}

const credentialsOf = (partner: PartnerAt<'live'>): Credential[] => [
  { label: 'sandbox session', token: partner.token, kind: 'session', environment: 'sandbox' },
  { label: 'sandbox API key', token: partner.sandboxKey, kind: 'api_key', environment: 'sandbox' },
  { label: 'live session', token: partner.liveToken, kind: 'session', environment: 'live' },
  { label: 'live API key', token: partner.liveKey, kind: 'api_key', environment: 'live' },
];

const unknownAccountNumber = (code: string) => nuban(code, String(randomInt(0, 1e9)).padStart(9, '0'));

/** Same status and error_code for another partner's id as for an id that exists nowhere: no existence oracle. */
function assertSameAnswer(foreign: ApiResponse, unknown: ApiResponse, what: string): void {
  assert.equal(foreign.status, unknown.status, `${what}: ${foreign.text} vs ${unknown.text}`);
  assert.equal(foreign.body.error_code, unknown.body.error_code, what);
}

for (const dialect of DIALECTS) {
  describe(`tenancy across partners, credentials and environments [${dialect.name}]`, {
    skip: dialect.skip,
  }, () => {
    const suite = useApp(dialect.name);
    let a: PartnerAt<'live'>;
    let b: PartnerAt<'live'>;
    let member: Record<string, string>;
    let sandboxAccount: Record<string, string>;
    let liveAccount: Record<string, string>;
    before(async () => {
      const { t } = suite;
      a = await newPartner(suite, 'live');
      b = await newPartner(suite, 'live');
      const added = await t.api.post(TEAM, memberBody(), { token: a.token });
      assert.equal(added.status, 201, added.text);
      member = added.body.data;
      sandboxAccount = await createAccount(t, a.sandboxKey);
      const credited = await t.api.post(
        creditUrl(sandboxAccount['account_number']!),
        { amount: 10 },
        { token: a.sandboxKey },
      );
      assert.equal(credited.status, 201, credited.text);
      liveAccount = await createAccount(t, a.liveKey);
    });

    it("answers 404 to every credential of partner B for partner A's team member (GET, PUT, DELETE)", async () => {
      const { t } = suite;
      const update = { ...memberBody({ first_name: 'Mallory' }), bvn: undefined };
      for (const credential of credentialsOf(b)) {
        const path = memberUrl(member['id']!);
        const token = credential.token;
        assertError(await t.api.get(path, { token }), 404, 'NOT_FOUND');
        assertError(await t.api.put(path, update, { token }), 404, 'NOT_FOUND');
        assertError(await t.api.delete(path, { token }), 404, 'NOT_FOUND');
        const listed = await t.api.get(`${TEAM}?limit=100`, { token });
        assert.ok(!listed.text.includes(member['id']!), `${credential.label} lists A's member`);
      }
      const read = await t.api.get(memberUrl(member['id']!), { token: a.liveKey });
      assert.equal(read.status, 200);
      assert.deepEqual(read.body.data, member);
    });

    it("answers 404 to partner B's sessions for partner A's API key ids, and 403 FORBIDDEN to B's API keys for any id", async () => {
      const { t } = suite;
      for (const credential of credentialsOf(b)) {
        for (const keyId of [a.sandboxKeyId, a.liveKeyId]) {
          const foreign = await t.api.delete(apiKeyUrl(keyId), { token: credential.token });
          const unknown = await t.api.delete(apiKeyUrl(randomUUID()), { token: credential.token });
          if (credential.kind === 'session') assertError(foreign, 404, 'NOT_FOUND');
          else assertError(foreign, 403, 'FORBIDDEN');
          assertSameAnswer(foreign, unknown, `${credential.label} DELETE api-keys`);
        }
        if (credential.kind === 'session') {
          const listed = await t.api.get(`${API_KEYS}?limit=100`, { token: credential.token });
          assert.equal(listed.status, 200);
          assert.ok(!listed.text.includes(a.sandboxKeyId) && !listed.text.includes(a.liveKeyId));
        }
      }
      const keys = await t.db
        .selectFrom('api_keys')
        .select(['id', 'revoked_at'])
        .where('partner_id', '=', a.companyId)
        .execute();
      assert.ok(keys.length >= 2);
      for (const key of keys) assert.equal(key.revoked_at, null, key.id);
      assert.equal((await t.api.get(VIRTUAL_ACCOUNTS, { token: a.sandboxKey })).status, 200);
      assert.equal((await t.api.get(VIRTUAL_ACCOUNTS, { token: a.liveKey })).status, 200);
    });

    it("answers every credential of partner B for partner A's account numbers as for numbers that exist nowhere", async () => {
      const { t } = suite;
      for (const credential of credentialsOf(b)) {
        const token = credential.token;
        for (const account of [sandboxAccount, liveAccount]) {
          const number = account['account_number']!;
          const unknown = unknownAccountNumber(account['bank_code']!);
          assertError(await t.api.get(accountUrl(number), { token }), 404, 'NOT_FOUND');
          assertError(await t.api.get(transactionsUrl(number), { token }), 404, 'NOT_FOUND');
          const credit = await t.api.post(creditUrl(number), { amount: 1 }, { token });
          if (credential.environment === 'sandbox') assertError(credit, 404, 'NOT_FOUND');
          else assertError(credit, 403, 'SANDBOX_ONLY');
          assertSameAnswer(
            credit,
            await t.api.post(creditUrl(unknown), { amount: 1 }, { token }),
            `${credential.label} credit`,
          );
        }
        const listed = await t.api.get(`${VIRTUAL_ACCOUNTS}?limit=100`, { token });
        assert.equal(listed.status, 200);
        assert.ok(!listed.text.includes(sandboxAccount['account_number']!));
        assert.ok(!listed.text.includes(liveAccount['account_number']!));
      }
      const ledger = await t.db
        .selectFrom('account_transactions')
        .select(['account_id', 'amount_kobo', 'partner_id'])
        .where('account_id', 'in', [sandboxAccount['id']!, liveAccount['id']!])
        .execute();
      assert.deepEqual(
        ledger.map((row) => ({ ...row, amount_kobo: Number(row.amount_kobo) })),
        [{ account_id: sandboxAccount['id'], amount_kobo: 1000, partner_id: a.companyId }],
      );
    });

    it("lets partner B open an account for the same end user without touching partner A's", async () => {
      const { t } = suite;
      const email = (sandboxAccount as unknown as { customer: { email: string } }).customer.email;
      const created = await createAccount(t, b.token, { email });
      assert.notEqual(created.account_number, sandboxAccount['account_number']);
      const still = await t.api.get(accountUrl(sandboxAccount['account_number']!), {
        token: a.token,
      });
      assert.equal(still.body.data.balance_kobo, 1000);
      assert.equal(still.body.data.id, sandboxAccount['id']);
    });
  });
}
