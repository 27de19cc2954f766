import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isValidNuban } from '../../src/modules/virtual-accounts/nuban.js';
import { DIALECTS, useApp } from '../support/app.js';
import { newPartner } from '../support/partners.js';
import { API_KEYS, accountUrl, BUSINESS_INFO, CREATE_ACCOUNT, creditUrl } from '../support/paths.js';

for (const dialect of DIALECTS) {
  describe(`services journey [${dialect.name}]`, { skip: dialect.skip }, () => {
    const app = useApp(dialect.name);

    it('issues an account with an API key, replays a retried request and credits it in sandbox', async () => {
      const { t, sink } = app;
      const partner = await newPartner({ t, sink }, 'signed-in');
      const live = await t.api.post(
        API_KEYS,
        { name: 'prod', environment: 'live' },
        { token: partner.token },
      );
      assert.equal(live.status, 403);
      assert.equal(live.body.error_code, 'ONBOARDING_NOT_APPROVED');
      const created = await t.api.post(
        API_KEYS,
        { name: 'backend', environment: 'sandbox' },
        { token: partner.token },
      );
      assert.equal(created.status, 201, created.text);
      const key: string = created.body.data.key;
      assert.match(key, /^sk_sandbox_[A-Za-z0-9_-]{43}$/);

      const onDashboard = await t.api.get(BUSINESS_INFO, { token: key });
      assert.equal(onDashboard.status, 403);
      assert.equal(onDashboard.body.error_code, 'FORBIDDEN');

      const customer = {
        first_name: 'Tunde',
        last_name: 'Bakare',
        email: 'tunde@example.com',
        phone: '+2348090000000',
      };
      const headers = { 'idempotency-key': 'create-tunde-1' };
      const first = await t.api.post(CREATE_ACCOUNT, customer, {
        token: key,
        headers,
      });
      assert.equal(first.status, 201, first.text);
      assert.ok(isValidNuban(first.body.data.bank_code, first.body.data.account_number));
      assert.equal(first.body.data.account_name, 'Acme Payments Ltd/Tunde Bakare');
      const replay = await t.api.post(CREATE_ACCOUNT, customer, {
        token: key,
        headers,
      });
      assert.equal(replay.status, 201);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.equal(replay.text, first.text);
      const reused = await t.api.post(
        CREATE_ACCOUNT,
        { ...customer, first_name: 'Other' },
        { token: key, headers },
      );
      assert.equal(reused.status, 422);
      assert.equal(reused.body.error_code, 'IDEMPOTENCY_KEY_REUSED');
      const duplicate = await t.api.post(CREATE_ACCOUNT, customer, { token: key });
      assert.equal(duplicate.status, 409);
      assert.equal(duplicate.body.error_code, 'VIRTUAL_ACCOUNT_EXISTS');
      assert.equal(duplicate.body.data.account_number, first.body.data.account_number);

      const number = first.body.data.account_number;
      const credits = await Promise.all(
        Array.from({ length: 20 }, () => t.api.post(creditUrl(number), { amount: 0.29 }, { token: key })),
      );
      assert.ok(
        credits.every((credit) => credit.status === 201),
        credits.map((credit) => credit.text).join('\n'),
      );
      const account = await t.api.get(accountUrl(number), { token: partner.token });
      assert.equal(account.body.data.balance_kobo, 580);
      assert.equal(account.body.data.balance, 5.8);
    });
  });
}
