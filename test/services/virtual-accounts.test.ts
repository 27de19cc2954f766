import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { isValidNuban } from '../../src/modules/virtual-accounts/nuban.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError, ISO_INSTANT, UUID } from '../support/assertions.js';
import { nextMillisecond } from '../support/clock.js';
import { customerBody } from '../support/factories.js';
import { allPages } from '../support/http.js';
import { newPartner, type PartnerAt } from '../support/partners.js';
import {
  API_PREFIX,
  accountUrl,
  CREATE_ACCOUNT,
  creditUrl,
  transactionsUrl,
  VIRTUAL_ACCOUNTS,
} from '../support/paths.js';
import { columnsContaining } from '../support/records.js';

const ACCOUNT_FIELDS = [
  'account_name',
  'account_number',
  'balance',
  'bank_code',
  'bank_name',
  'created_at',
  'currency',
  'customer',
  'environment',
  'id',
  'status',
];
const DEFAULT_SANDBOX_CODE = '999999';
const DEFAULT_LIVE_CODE = '090999';
const DEFAULT_BANK_NAME = 'BaaS Partner Bank';

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary payloads.
type Account = Record<string, any>;

/** The fields of a fresh account (docs/partner-guide.md, "Virtual accounts"). */
function assertNewAccount(
  account: Account,
  expected: {
    environment: 'sandbox' | 'live';
    bankCode: string;
    bankName: string;
    businessName: string;
    customer: Record<string, unknown>;
  },
): void {
  for (const field of ACCOUNT_FIELDS) assert.ok(field in account, `account.${field} missing`);
  assert.match(account['id'], UUID);
  assert.match(account['account_number'], /^[0-9]{10}$/);
  assert.ok(
    isValidNuban(expected.bankCode, account['account_number']),
    `${account['account_number']} invalid for ${expected.bankCode}`,
  );
  const customer = expected.customer;
  assert.equal(
    account['account_name'],
    `${expected.businessName}/${customer['first_name']} ${customer['last_name']}`,
  );
  assert.equal(account['bank_name'], expected.bankName);
  assert.equal(account['bank_code'], expected.bankCode);
  assert.equal(account['currency'], 'NGN');
  assert.equal(account['status'], 'active');
  assert.equal(account['balance'], 0);
  assert.equal(account['environment'], expected.environment);
  assert.deepEqual(account['customer'], {
    first_name: customer['first_name'],
    last_name: customer['last_name'],
    email: String(customer['email']).trim().toLowerCase(),
    phone: customer['phone'],
  });
  assert.match(account['created_at'], ISO_INSTANT);
}

for (const dialect of DIALECTS) {
  describe(`virtual accounts [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);
    const businessName = `Zenith Widgets ${randomInt(1e6)} Ltd`;
    let a: PartnerAt<'sandbox'>;
    let b: PartnerAt<'sandbox'>;
    let live: PartnerAt<'live'>;
    before(async () => {
      a = await newPartner(suite, 'sandbox', { business_name: businessName });
      b = await newPartner(suite, 'sandbox');
      live = await newPartner(suite, 'live');
    });

    it('creates a sandbox account: 201 with the documented fields, a valid NUBAN for BANK_CODE_SANDBOX and balance 0', async () => {
      const { t } = suite;
      const customer = customerBody({ email: `  Tunde.B.${randomInt(1e9)}@Example.COM ` });
      for (const token of [a.sandboxKey, a.token]) {
        const body = token === a.sandboxKey ? customer : customerBody();
        const created = await t.api.post(CREATE_ACCOUNT, body, { token });
        assert.equal(created.status, 201, created.text);
        assert.equal(created.body.status, 'success');
        const account = created.body.data;
        assertNewAccount(account, {
          environment: 'sandbox',
          bankCode: DEFAULT_SANDBOX_CODE,
          bankName: DEFAULT_BANK_NAME,
          businessName,
          customer: body,
        });
        assert.equal(account.balance_kobo, 0);

        const row = await t.db
          .selectFrom('virtual_accounts')
          .selectAll()
          .where('id', '=', account.id)
          .executeTakeFirstOrThrow();
        assert.equal(row.partner_id, a.companyId);
        assert.equal(row.environment, 'sandbox');
        assert.equal(row.account_number, account.account_number);
        assert.equal(row.bank_code, DEFAULT_SANDBOX_CODE);
        assert.equal(row.customer_email, account.customer.email);

        const read = await t.api.get(accountUrl(account.account_number), { token });
        assert.equal(read.status, 200, read.text);
        assert.deepEqual(read.body.data, account);
      }
    });

    it('takes an optional BVN, stores it encrypted and never returns it', async () => {
      const { t } = suite;
      const bvn = `22${String(randomInt(0, 1e9)).padStart(9, '0')}`;
      const created = await t.api.post(CREATE_ACCOUNT, customerBody({ bvn }), { token: a.sandboxKey });
      assert.equal(created.status, 201, created.text);
      assert.ok(!created.text.includes(bvn));
      const row = await t.db
        .selectFrom('virtual_accounts')
        .selectAll()
        .where('id', '=', created.body.data.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.bvn_last4, bvn.slice(-4));
      assert.notEqual(row.bvn_encrypted, null);
      assert.deepEqual(await columnsContaining(suite, bvn), []);
      assert.ok(!t.logs.some((line) => line.includes(bvn)));
    });

    it('issues live accounts with BANK_CODE_LIVE from live credentials', async () => {
      const { t } = suite;
      for (const token of [live.liveKey, live.liveToken]) {
        const body = customerBody();
        const created = await t.api.post(CREATE_ACCOUNT, body, { token });
        assert.equal(created.status, 201, created.text);
        assertNewAccount(created.body.data, {
          environment: 'live',
          bankCode: DEFAULT_LIVE_CODE,
          bankName: DEFAULT_BANK_NAME,
          businessName: 'Acme Payments Ltd',
          customer: body,
        });
        const row = await t.db
          .selectFrom('virtual_accounts')
          .select(['environment', 'bank_code'])
          .where('id', '=', created.body.data.id)
          .executeTakeFirstOrThrow();
        assert.deepEqual(row, { environment: 'live', bank_code: DEFAULT_LIVE_CODE });
      }
    });

    it('allows one account per e-mail per partner per environment: 409 VIRTUAL_ACCOUNT_EXISTS with the existing account in data', async () => {
      const { t } = suite;
      const email = `unique-${randomInt(1e9)}@example.com`;
      const first = await t.api.post(CREATE_ACCOUNT, customerBody({ email }), { token: a.sandboxKey });
      assert.equal(first.status, 201, first.text);

      for (const token of [a.sandboxKey, a.token]) {
        const again = await t.api.post(
          CREATE_ACCOUNT,
          customerBody({ email: email.toUpperCase(), first_name: 'Someone', last_name: 'Else' }),
          { token },
        );
        assertError(again, 409, 'VIRTUAL_ACCOUNT_EXISTS', { data: true });
        assert.deepEqual(again.body.data, first.body.data);
      }
      const rows = await t.db
        .selectFrom('virtual_accounts')
        .select('id')
        .where('partner_id', '=', a.companyId)
        .where('customer_email', '=', email)
        .execute();
      assert.equal(rows.length, 1);

      // Another partner, and the same partner in the other environment, may use the e-mail.
      const other = await t.api.post(CREATE_ACCOUNT, customerBody({ email }), { token: b.sandboxKey });
      assert.equal(other.status, 201, other.text);
      const inSandbox = await t.api.post(CREATE_ACCOUNT, customerBody({ email }), { token: live.sandboxKey });
      assert.equal(inSandbox.status, 201, inSandbox.text);
      const inLive = await t.api.post(CREATE_ACCOUNT, customerBody({ email }), { token: live.liveKey });
      assert.equal(inLive.status, 201, inLive.text);
      assertError(
        await t.api.post(CREATE_ACCOUNT, customerBody({ email }), { token: live.liveToken }),
        409,
        'VIRTUAL_ACCOUNT_EXISTS',
        { data: true },
      );
      const numbers = [first, other, inSandbox, inLive].map((response) => response.body.data.account_number);
      assert.equal(new Set(numbers).size, 4);
    });

    it('lists accounts newest first with cursor pagination, and reads one', async () => {
      const { t } = suite;
      const owner = await newPartner(suite, 'sandbox');
      const created: Account[] = [];
      for (let index = 0; index < 5; index++) {
        await nextMillisecond();
        const response = await t.api.post(CREATE_ACCOUNT, customerBody({ first_name: `C${index}` }), {
          token: owner.sandboxKey,
        });
        assert.equal(response.status, 201, response.text);
        created.push(response.body.data);
      }
      const newestFirst = created.map((account) => account['account_number']).reverse();
      for (const [limit, pageCount] of [
        [2, 3],
        [5, 1],
        [1, 5],
      ] as const) {
        const pages = await allPages(t, VIRTUAL_ACCOUNTS, owner.token, limit);
        assert.equal(pages.length, pageCount, `limit ${limit}`);
        assert.deepEqual(
          pages.flat().map((item) => item['account_number']),
          newestFirst,
        );
      }
      const listed = await t.api.get(`${VIRTUAL_ACCOUNTS}?limit=100`, { token: owner.sandboxKey });
      assert.deepEqual(listed.body.data.items, [...created].reverse());
      assert.equal(listed.body.data.next_cursor, null);

      const token = owner.sandboxKey;
      assertError(await t.api.get(`${VIRTUAL_ACCOUNTS}?cursor=%%%`, { token }), 422, 'VALIDATION_FAILED', {
        fields: ['cursor'],
      });
      assertError(await t.api.get(`${VIRTUAL_ACCOUNTS}?limit=0`, { token }), 422, 'VALIDATION_FAILED', {
        fields: ['limit'],
      });
      assertError(await t.api.get(`${VIRTUAL_ACCOUNTS}?limit=101`, { token }), 422, 'VALIDATION_FAILED', {
        fields: ['limit'],
      });
    });

    it('keeps environments apart: sandbox credentials never see live accounts and live credentials never see sandbox ones', async () => {
      const { t } = suite;
      const sandboxAccount = (await t.api.post(CREATE_ACCOUNT, customerBody(), { token: live.sandboxKey }))
        .body.data;
      const liveAccount = (await t.api.post(CREATE_ACCOUNT, customerBody(), { token: live.liveKey })).body
        .data;
      assert.equal(sandboxAccount.environment, 'sandbox');
      assert.equal(liveAccount.environment, 'live');

      const pairs: Array<[string[], Account, Account]> = [
        [[live.sandboxKey, live.token], liveAccount, sandboxAccount],
        [[live.liveKey, live.liveToken], sandboxAccount, liveAccount],
      ];
      for (const [tokens, hidden, visible] of pairs) {
        for (const token of tokens) {
          assertError(await t.api.get(accountUrl(hidden['account_number']), { token }), 404, 'NOT_FOUND');
          assertError(
            await t.api.get(transactionsUrl(hidden['account_number']), { token }),
            404,
            'NOT_FOUND',
          );
          const listed = await t.api.get(`${VIRTUAL_ACCOUNTS}?limit=100`, { token });
          const numbers = listed.body.data.items.map((item: Account) => item['account_number']);
          assert.ok(!numbers.includes(hidden['account_number']), 'listed across environments');
          assert.ok(numbers.includes(visible['account_number']));
          for (const item of listed.body.data.items) assert.equal(item.environment, visible['environment']);
          assert.equal((await t.api.get(accountUrl(visible['account_number']), { token })).status, 200);
        }
      }
      assertError(
        await t.api.post(creditUrl(liveAccount.account_number), { amount: 5 }, { token: live.sandboxKey }),
        404,
        'NOT_FOUND',
      );
      const ledger = await t.db
        .selectFrom('account_transactions')
        .select('id')
        .where('account_id', '=', liveAccount.id)
        .execute();
      assert.deepEqual(ledger, []);
    });

    it('answers 100 concurrent creates (different e-mails, one API key) with 100 distinct valid numbers', async () => {
      const { t } = suite;
      const owner = await newPartner(suite, 'sandbox');
      const responses = await Promise.all(
        Array.from({ length: 100 }, (_, index) =>
          t.api.post(CREATE_ACCOUNT, customerBody({ email: `burst-${index}@example.com` }), {
            token: owner.sandboxKey,
          }),
        ),
      );
      const failures = responses.filter((response) => response.status !== 201);
      assert.deepEqual(
        failures.map((response) => response.text),
        [],
      );
      const numbers = responses.map((response) => response.body.data.account_number as string);
      assert.equal(new Set(numbers).size, 100);
      for (const number of numbers) assert.ok(isValidNuban(DEFAULT_SANDBOX_CODE, number), number);

      const rows = await t.db
        .selectFrom('virtual_accounts')
        .select(['account_number', 'customer_email'])
        .where('partner_id', '=', owner.companyId)
        .execute();
      assert.equal(rows.length, 100);
      assert.equal(new Set(rows.map((row) => row.account_number)).size, 100);
      assert.equal(new Set(rows.map((row) => row.customer_email)).size, 100);

      // Random serials: adjacent serials would betray a counter.
      const serials = numbers.map((number) => Number(number.slice(0, 9))).sort((x, y) => x - y);
      const adjacent = serials.slice(1).filter((serial, index) => serial - serials[index]! <= 1).length;
      assert.ok(adjacent < 5, `${adjacent} pairs of consecutive serials`);
    });

    it('does not hand out sequential numbers: one account number does not reveal the next', async () => {
      const { t } = suite;
      const serials: number[] = [];
      for (let index = 0; index < 8; index++) {
        const created = await t.api.post(CREATE_ACCOUNT, customerBody(), { token: b.sandboxKey });
        assert.equal(created.status, 201, created.text);
        serials.push(Number(created.body.data.account_number.slice(0, 9)));
      }
      const steps = serials.slice(1).map((serial, index) => serial - serials[index]!);
      assert.ok(new Set(steps).size > 1, `constant step ${steps[0]}: numbers are predictable`);
      assert.ok(
        steps.some((step) => step < 0) || steps.some((step) => Math.abs(step) > 1000),
        `steps ${steps}`,
      );
    });

    it('ignores unknown body fields: no chosen number, balance, environment, bank or owner', async () => {
      const { t } = suite;
      const body = customerBody({
        account_number: '0000014579',
        balance: 1_000_000,
        balance_kobo: 100_000_000,
        environment: 'live',
        bank_code: '000011',
        bank_name: 'Chosen Bank',
        status: 'frozen',
        partner_id: b.companyId,
        id: '0190f0e4-7a2b-7c3d-8e4f-5a6b7c8d9e0f',
      });
      const created = await t.api.post(CREATE_ACCOUNT, body, { token: a.sandboxKey });
      assert.equal(created.status, 201, created.text);
      const account = created.body.data;
      assert.notEqual(account.id, body['id']);
      assert.notEqual(account.account_number, body['account_number']);
      assert.equal(account.balance, 0);
      assert.equal(account.balance_kobo, 0);
      assert.equal(account.environment, 'sandbox');
      assert.equal(account.bank_code, DEFAULT_SANDBOX_CODE);
      assert.equal(account.bank_name, DEFAULT_BANK_NAME);
      assert.equal(account.status, 'active');
      const row = await t.db
        .selectFrom('virtual_accounts')
        .select(['partner_id', 'account_number'])
        .where('id', '=', account.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.partner_id, a.companyId);
      assert.equal(row.account_number, account.account_number);
      const ledger = await t.db
        .selectFrom('account_transactions')
        .select('id')
        .where('account_id', '=', account.id)
        .execute();
      assert.deepEqual(ledger, []);
    });

    it('takes only e-mail addresses of the standard grammar, so every account and its events read back (no doubled dot)', async () => {
      const { t } = suite;
      const partner = await newPartner(suite, 'sandbox');
      for (const email of ['a..b@example.com', '.ada@example.com', 'ada.@example.com']) {
        assertError(
          await t.api.post(CREATE_ACCOUNT, customerBody({ email }), { token: partner.sandboxKey }),
          422,
          'VALIDATION_FAILED',
          { fields: ['email'], what: email },
        );
      }
      const unusual = await t.api.post(
        CREATE_ACCOUNT,
        customerBody({ email: "o'brien+ledger.tag@mail.example.co.uk" }),
        { token: partner.sandboxKey },
      );
      assert.equal(unusual.status, 201, unusual.text);
      // The events list serializes each event through its type's schema, formats included.
      const events = await t.api.get(`${API_PREFIX}/services/events`, { token: partner.sandboxKey });
      assert.equal(events.status, 200, events.text);
      assert.equal(events.body.data.items[0].data.customer.email, "o'brien+ledger.tag@mail.example.co.uk");
    });

    it('validates the body with 422 VALIDATION_FAILED naming the field, creating nothing', async () => {
      const { t } = suite;
      const owner = await newPartner(suite, 'sandbox');
      const token = owner.sandboxKey;
      assertError(await t.api.post(CREATE_ACCOUNT, {}, { token }), 422, 'VALIDATION_FAILED', {
        fields: ['first_name', 'last_name', 'email', 'phone'],
      });
      for (const field of ['first_name', 'last_name', 'email', 'phone']) {
        const { [field]: _removed, ...body } = customerBody();
        assertError(await t.api.post(CREATE_ACCOUNT, body, { token }), 422, 'VALIDATION_FAILED', {
          fields: [field],
        });
        assertError(
          await t.api.post(CREATE_ACCOUNT, { ...body, [field]: '  ' }, { token }),
          422,
          'VALIDATION_FAILED',
          { fields: [field] },
        );
      }
      const cases: Array<[string, unknown]> = [
        ['first_name', 42],
        ['last_name', ['Bakare']],
        ['email', 5],
        ['email', 'tunde-at-example.com'],
        ['phone', 2348090000000],
        ['phone', 'call me maybe'],
        ['phone', '1'.repeat(21)],
        ['first_name', 'x'.repeat(101)],
        ['last_name', 'y'.repeat(101)],
        ['bvn', '2212345678'],
        ['bvn', '221234567890'],
        ['bvn', '22abc456789'],
        ['bvn', 22123456789],
      ];
      for (const [field, value] of cases) {
        assertError(
          await t.api.post(CREATE_ACCOUNT, customerBody({ [field]: value }), { token }),
          422,
          'VALIDATION_FAILED',
          { fields: [field] },
        );
      }
      const rows = await t.db
        .selectFrom('virtual_accounts')
        .select('id')
        .where('partner_id', '=', owner.companyId)
        .execute();
      assert.deepEqual(rows, []);

      const longest = await t.api.post(
        CREATE_ACCOUNT,
        customerBody({ first_name: 'x'.repeat(100), last_name: 'y'.repeat(100) }),
        { token },
      );
      assert.equal(longest.status, 201, longest.text);
    });
  });

  describe(`virtual accounts with configured bank codes [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name, {
      env: { BANK_CODE_SANDBOX: '000011', BANK_CODE_LIVE: '950211', BANK_NAME: 'Kobo Microfinance Bank' },
    });

    it('uses BANK_CODE_SANDBOX, BANK_CODE_LIVE and BANK_NAME from the configuration', async () => {
      const { t } = suite;
      const partner = await newPartner(suite, 'live');
      const sandbox = await t.api.post(CREATE_ACCOUNT, customerBody(), { token: partner.sandboxKey });
      assert.equal(sandbox.status, 201, sandbox.text);
      assert.equal(sandbox.body.data.bank_code, '000011');
      assert.equal(sandbox.body.data.bank_name, 'Kobo Microfinance Bank');
      assert.ok(isValidNuban('000011', sandbox.body.data.account_number));
      assert.ok(isValidNuban('011', sandbox.body.data.account_number));

      const liveAccount = await t.api.post(CREATE_ACCOUNT, customerBody(), { token: partner.liveKey });
      assert.equal(liveAccount.status, 201, liveAccount.text);
      assert.equal(liveAccount.body.data.bank_code, '950211');
      assert.equal(liveAccount.body.data.bank_name, 'Kobo Microfinance Bank');
      assert.ok(isValidNuban('950211', liveAccount.body.data.account_number));
      assert.ok(isValidNuban('50211', liveAccount.body.data.account_number));

      const rows = await t.db
        .selectFrom('virtual_accounts')
        .select(['bank_code', 'bank_name', 'environment'])
        .orderBy('environment')
        .execute();
      assert.deepEqual(rows, [
        { bank_code: '950211', bank_name: 'Kobo Microfinance Bank', environment: 'live' },
        { bank_code: '000011', bank_name: 'Kobo Microfinance Bank', environment: 'sandbox' },
      ]);
    });
  });
}
