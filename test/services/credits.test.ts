import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { nuban } from '../../src/modules/virtual-accounts/nuban.js';
import { type AppContext, DIALECTS, useApp } from '../support/app.js';
import { assertError, ISO_INSTANT, UUID } from '../support/assertions.js';
import { nextMillisecond } from '../support/clock.js';
import { allPages } from '../support/http.js';
import { assertLedgerBalanced } from '../support/ledger.js';
import { createAccount, newPartner, type PartnerAt } from '../support/partners.js';
import { accountUrl, creditUrl, transactionsUrl, VIRTUAL_ACCOUNTS } from '../support/paths.js';

async function ledgerOf(suite: AppContext, accountId: string) {
  return suite.t.db
    .selectFrom('account_transactions')
    .selectAll()
    .where('account_id', '=', accountId)
    .execute();
}

for (const dialect of DIALECTS) {
  describe(`sandbox credits and balances [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);
    let a: PartnerAt<'sandbox'>;
    let b: PartnerAt<'sandbox'>;
    let live: PartnerAt<'live'>;
    before(async () => {
      a = await newPartner(suite, 'sandbox');
      b = await newPartner(suite, 'sandbox');
      live = await newPartner(suite, 'live');
    });

    it('credits a sandbox account: 201 with {transaction, account} and the balance as the exact sum in kobo and naira', async () => {
      const { t } = suite;
      const account = await createAccount(suite.t, a.sandboxKey);
      const credits: Array<[unknown, number, string | undefined]> = [
        ['1500.50', 150050, 'Test transfer'],
        [0.29, 29, undefined],
        [10_000_000, 1_000_000_000, 'largest single credit'],
        ['10000000.00', 1_000_000_000, undefined],
        [10_000_000, 1_000_000_000, 'past 2^31 kobo in total'],
        [' 0.01 ', 1, undefined],
      ];
      let expected = 0;
      for (const [amount, kobo, narration] of credits) {
        const response = await t.api.post(
          creditUrl(account.account_number),
          narration === undefined ? { amount } : { amount, narration },
          { token: a.sandboxKey },
        );
        assert.equal(response.status, 201, response.text);
        expected += kobo;
        const { transaction, account: after } = response.body.data;
        assert.match(transaction.id, UUID);
        assert.equal(transaction.type, 'credit');
        assert.equal(transaction.amount_kobo, kobo);
        assert.equal(transaction.amount, kobo / 100);
        assert.equal(transaction.currency, 'NGN');
        assert.equal(transaction.narration, narration ?? null);
        assert.equal(typeof transaction.reference, 'string');
        assert.ok(transaction.reference.length > 0);
        assert.match(transaction.created_at, ISO_INSTANT);
        assert.equal(after.account_number, account.account_number);
        assert.equal(after.balance_kobo, expected);
        assert.equal(after.balance, expected / 100);
        assert.equal(after.available_balance_kobo, expected, 'no transfer holds any of it');
        assert.equal(after.available_balance, expected / 100);
        assert.equal(transaction.kind, 'inbound_transfer');
        assert.equal(transaction.balance_after_kobo, expected);
        assert.equal(transaction.balance_after, expected / 100);
      }
      assert.equal(expected, 3_000_150_080);
      const read = await t.api.get(accountUrl(account.account_number), { token: a.token });
      assert.equal(read.body.data.balance_kobo, 3_000_150_080);
      assert.equal(read.body.data.balance, 30_001_500.8);

      const listed = await t.api.get(`${VIRTUAL_ACCOUNTS}?limit=100`, { token: a.sandboxKey });
      const item = listed.body.data.items.find(
        (entry: { account_number: string }) => entry.account_number === account.account_number,
      );
      assert.equal(item.balance_kobo, 3_000_150_080);
      assert.equal(item.balance, 30_001_500.8);

      const ledger = await ledgerOf(suite, account.id);
      assert.equal(ledger.length, credits.length);
      for (const row of ledger) assert.ok(Number.isInteger(row.amount_kobo), `${row.amount_kobo}`);
      assert.equal(
        ledger.reduce((sum, row) => sum + Number(row.amount_kobo), 0),
        3_000_150_080,
      );
      assert.equal(new Set(ledger.map((row) => row.reference)).size, credits.length);
    });

    it('refuses amounts that are not > 0, ≤ 2 decimals and ≤ 10,000,000.00 with 422 errors.amount', async () => {
      const { t } = suite;
      const account = await createAccount(suite.t, a.sandboxKey);
      const url = creditUrl(account.account_number);
      for (const amount of [
        0,
        -1,
        0.001,
        '1.005',
        10_000_000.01,
        '10000000.01',
        'abc',
        true,
        null,
        '',
        '1e3',
        {},
        [5],
        '0.00',
      ]) {
        assertError(await t.api.post(url, { amount }, { token: a.sandboxKey }), 422, 'VALIDATION_FAILED', {
          fields: ['amount'],
        });
      }
      assertError(await t.api.post(url, {}, { token: a.sandboxKey }), 422, 'VALIDATION_FAILED', {
        fields: ['amount'],
      });
      assertError(
        await t.api.post(url, { amount: 1, narration: 'n'.repeat(256) }, { token: a.sandboxKey }),
        422,
        'VALIDATION_FAILED',
        { fields: ['narration'] },
      );
      assert.deepEqual(await ledgerOf(suite, account.id), []);
      const read = await t.api.get(accountUrl(account.account_number), { token: a.sandboxKey });
      assert.equal(read.body.data.balance_kobo, 0);
    });

    it('keeps the balance exact under 50 concurrent credits, with 50 ledger rows', async () => {
      const { t } = suite;
      const account = await createAccount(suite.t, a.sandboxKey);
      const pool: Array<[number | string, number]> = [
        [0.01, 1],
        [0.29, 29],
        [0.1, 10],
        [0.07, 7],
        [1.15, 115],
        [99.99, 9999],
        ['12.34', 1234],
        [4.35, 435],
        ['0.57', 57],
        [2, 200],
      ];
      const plan = Array.from({ length: 50 }, (_, index) => pool[index % pool.length]!);
      const expected = plan.reduce((sum, [, kobo]) => sum + kobo, 0);
      const responses = await Promise.all(
        plan.map(([amount]) =>
          t.api.post(creditUrl(account.account_number), { amount }, { token: a.sandboxKey }),
        ),
      );
      assert.deepEqual(
        responses.filter((response) => response.status !== 201).map((response) => response.text),
        [],
      );
      // Serialized credits: each response's balance is the previous one plus its own amount.
      const steps = responses
        .map((response) => response.body.data)
        .sort((x, y) => x.account.balance_kobo - y.account.balance_kobo);
      let previous = 0;
      for (const step of steps) {
        assert.equal(step.account.balance_kobo, previous + step.transaction.amount_kobo);
        assert.equal(step.transaction.balance_after_kobo, step.account.balance_kobo);
        previous = step.account.balance_kobo;
      }
      assert.equal(previous, expected);
      await assertLedgerBalanced(t.db);

      const read = await t.api.get(accountUrl(account.account_number), { token: a.token });
      assert.equal(read.body.data.balance_kobo, expected);
      assert.equal(read.body.data.balance, expected / 100);
      const ledger = await ledgerOf(suite, account.id);
      assert.equal(ledger.length, 50);
      assert.equal(
        ledger.reduce((sum, row) => sum + Number(row.amount_kobo), 0),
        expected,
      );
    });

    it('answers 403 SANDBOX_ONLY for a credit in live, with a live key or a live session', async () => {
      const { t } = suite;
      const account = await createAccount(suite.t, live.liveKey);
      for (const token of [live.liveKey, live.liveToken]) {
        assertError(
          await t.api.post(creditUrl(account.account_number), { amount: 100 }, { token }),
          403,
          'SANDBOX_ONLY',
        );
      }
      assert.deepEqual(await ledgerOf(suite, account.id), []);
      const read = await t.api.get(accountUrl(account.account_number), {
        token: live.liveToken,
      });
      assert.equal(read.body.data.balance_kobo, 0);

      const sandboxAccount = await createAccount(suite.t, live.token);
      const credited = await t.api.post(
        creditUrl(sandboxAccount.account_number),
        { amount: 1 },
        { token: live.token },
      );
      assert.equal(credited.status, 201, credited.text);
    });

    it('lists transactions newest first with cursor pagination', async () => {
      const { t } = suite;
      const account = await createAccount(suite.t, a.sandboxKey);
      const amounts = ['1.01', '2.02', '3.03', '4.04', '5.05'];
      const references: string[] = [];
      for (const amount of amounts) {
        await nextMillisecond();
        const response = await t.api.post(
          creditUrl(account.account_number),
          { amount },
          { token: a.sandboxKey },
        );
        assert.equal(response.status, 201, response.text);
        references.push(response.body.data.transaction.reference);
      }
      for (const [limit, pageCount] of [
        [2, 3],
        [1, 5],
        [5, 1],
      ] as const) {
        const pages = await allPages(t, transactionsUrl(account.account_number), a.token, limit);
        assert.equal(pages.length, pageCount, `limit ${limit}`);
        const items = pages.flat();
        assert.deepEqual(
          items.map((item) => item['amount_kobo']),
          [505, 404, 303, 202, 101],
        );
        assert.deepEqual(
          items.map((item) => item['reference']),
          [...references].reverse(),
        );
        for (const item of items) assert.equal(item['type'], 'credit');
      }
      const token = a.sandboxKey;
      const url = transactionsUrl(account.account_number);
      assertError(await t.api.get(`${url}?cursor=nope`, { token }), 422, 'VALIDATION_FAILED', {
        fields: ['cursor'],
      });
      assertError(await t.api.get(`${url}?limit=0`, { token }), 422, 'VALIDATION_FAILED', {
        fields: ['limit'],
      });
      assertError(await t.api.get(`${url}?limit=101`, { token }), 422, 'VALIDATION_FAILED', {
        fields: ['limit'],
      });

      const empty = await createAccount(suite.t, a.sandboxKey);
      const none = await t.api.get(transactionsUrl(empty.account_number), { token });
      assert.deepEqual(none.body.data, { items: [], next_cursor: null });
    });

    it("answers 404 for an unknown account number, another partner's, and a 9-digit, 11-digit or non-numeric one", async () => {
      const { t } = suite;
      const theirs = await createAccount(suite.t, b.sandboxKey);
      let unknown: string;
      do unknown = nuban('999999', String(randomInt(0, 1e9)).padStart(9, '0'));
      while (unknown === theirs.account_number);
      const numbers = [
        theirs.account_number,
        unknown,
        '123456789',
        '12345678901',
        'abcdefghij',
        '12345abcde',
        '%20123456789',
      ];
      for (const token of [a.sandboxKey, a.token]) {
        for (const number of numbers) {
          assertError(await t.api.get(accountUrl(number), { token }), 404, 'NOT_FOUND');
          assertError(await t.api.post(creditUrl(number), { amount: 1 }, { token }), 404, 'NOT_FOUND');
          assertError(await t.api.get(transactionsUrl(number), { token }), 404, 'NOT_FOUND');
        }
      }
      assert.deepEqual(await ledgerOf(suite, theirs.id), []);
    });

    it('answers 404 to its own account number with surrounding spaces or a tab: a path id is spelled exactly', async () => {
      const { t } = suite;
      const own = await createAccount(suite.t, a.sandboxKey);
      assert.equal((await t.api.get(accountUrl(own.account_number), { token: a.sandboxKey })).status, 200);
      for (const number of [
        `%20${own.account_number}`,
        `${own.account_number}%20`,
        `%20${own.account_number}%20`,
        `%09${own.account_number}`,
      ]) {
        const what = `GET ${number}`;
        assertError(await t.api.get(accountUrl(number), { token: a.sandboxKey }), 404, 'NOT_FOUND', { what });
        assertError(
          await t.api.post(creditUrl(number), { amount: 1 }, { token: a.sandboxKey }),
          404,
          'NOT_FOUND',
          { what },
        );
      }
      assert.deepEqual(await ledgerOf(suite, own.id), []);
    });
  });
}
