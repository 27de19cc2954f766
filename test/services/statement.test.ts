import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { type AppContext, DIALECTS, useApp } from '../support/app.js';
import { assertError, ISO_INSTANT, UUID } from '../support/assertions.js';
import { TestClock } from '../support/clock.js';
import { parseCsv } from '../support/csv.js';
import { uniqueSuffix } from '../support/factories.js';
import { allPages } from '../support/http.js';
import { seedEntries } from '../support/ledger.js';
import { createAccount, newPartner, type PartnerAt } from '../support/partners.js';
import { accountUrl, creditUrl, lifecycleUrl, statementUrl, VIRTUAL_ACCOUNTS } from '../support/paths.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary payloads.
type Json = Record<string, any>;

const CSV_HEADER = [
  'date',
  'reference',
  'type',
  'kind',
  'narration',
  'counterparty_name',
  'counterparty_account_number',
  'counterparty_bank_code',
  'session_id',
  'debit',
  'credit',
  'balance',
];
/** Where a CSV row holds the narration and the balance after its entry. */
const NARRATION = CSV_HEADER.indexOf('narration');
const BALANCE = CSV_HEADER.indexOf('balance');
const TRANSACTION_FIELDS = [
  'amount',
  'amount_kobo',
  'balance_after',
  'balance_after_kobo',
  'counterparty',
  'created_at',
  'currency',
  'id',
  'kind',
  'narration',
  'reference',
  'session_id',
  'transfer_id',
  'type',
];

/** Integer kobo as the naira text a statement shows: 150050 → "1500.50" (computed here, not by the app). */
const naira = (kobo: number): string => `${Math.floor(kobo / 100)}.${String(kobo % 100).padStart(2, '0')}`;

/** "1500.50" → 150050, from the digits: refuses anything that is not a 2-decimal amount. */
function koboOf(text: string): number {
  const match = /^([0-9]+)\.([0-9]{2})$/.exec(text);
  assert.ok(match, `not a 2-decimal naira amount: ${JSON.stringify(text)}`);
  return Number(match[1]) * 100 + Number(match[2]);
}

interface CsvResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** A statement as the client's raw HTTP answer (the kit's client only reads JSON). */
async function fetchStatement(
  suite: AppContext,
  path: string,
  token: string,
  accept: string | undefined,
): Promise<CsvResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (accept !== undefined) headers['accept'] = accept;
  const response = await fetch(`${suite.t.url}${path}`, { headers });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/**
 * The kit's clock, which can also stand still: credits and accounts are then stamped with exactly
 * the instant a test names (the last millisecond of a day, the first of the next).
 */
class StoppableClock extends TestClock {
  private stopped: number | undefined;
  override now(): number {
    return this.stopped ?? super.now();
  }
  stopAt(ms: number | undefined): void {
    this.stopped = ms;
  }
}

/** Runs `work` with the app's clock standing at `iso`, then lets it run again. */
async function at<T>(suite: AppContext, iso: string, work: () => Promise<T>): Promise<T> {
  const clock = suite.t.clock as StoppableClock;
  assert.ok(clock instanceof StoppableClock, 'the suite runs on a StoppableClock');
  clock.stopAt(Date.parse(iso));
  try {
    return await work();
  } finally {
    clock.stopAt(undefined);
  }
}

interface Credit {
  at: string;
  amount: number | string;
  kobo: number;
  narration?: string;
}

/** Credits the account at each credit's instant; returns the transactions the app answered with. */
async function creditAt(suite: AppContext, token: string, accountNumber: string, credits: Credit[]) {
  const made: Json[] = [];
  for (const credit of credits) {
    const body = {
      amount: credit.amount,
      ...(credit.narration === undefined ? {} : { narration: credit.narration }),
    };
    const response = await at(suite, credit.at, () =>
      suite.t.api.post(creditUrl(accountNumber), body, { token }),
    );
    assert.equal(response.status, 201, response.text);
    const transaction = response.body.data.transaction;
    assert.equal(transaction.amount_kobo, credit.kobo);
    assert.equal(transaction.created_at, new Date(credit.at).toISOString());
    made.push(transaction);
  }
  return made;
}

/**
 * Ledger credits as the bank side books them (real credits do not pass through simulate-credit's
 * validation): 1.00 each, at the instants given.
 */
async function insertBankCredits(
  suite: AppContext,
  accountNumber: string,
  credits: Array<{ narration: string; at: string }>,
): Promise<void> {
  await seedEntries(
    suite.t.db,
    accountNumber,
    credits.map((credit) => ({ kobo: 100, narration: credit.narration, at: Date.parse(credit.at) })),
  );
}

const sumKobo = (credits: Credit[]) => credits.reduce((sum, credit) => sum + credit.kobo, 0);

/** The statement's balances: each `_kobo` field an integer and its naira twin exactly kobo / 100. */
function assertBalances(statement: Json, expected: { opening: number; total: number }, what: string): void {
  const closing = expected.opening + expected.total;
  for (const [field, kobo] of [
    ['opening_balance', expected.opening],
    ['total_credits', expected.total],
    // No transfers out yet: sandbox accounts only receive.
    ['total_debits', 0],
    ['closing_balance', closing],
  ] as const) {
    assert.ok(Number.isInteger(statement[`${field}_kobo`]), `${what}: ${field}_kobo is an integer`);
    assert.equal(statement[`${field}_kobo`], kobo, `${what}: ${field}_kobo`);
    assert.equal(statement[field], kobo / 100, `${what}: ${field}`);
    assert.equal(statement[field].toFixed(2), naira(kobo), `${what}: ${field} to the kobo`);
  }
}

const query = (params: Record<string, string>) => `${VIRTUAL_ACCOUNTS}?${new URLSearchParams(params)}`;

for (const dialect of DIALECTS) {
  describe(`virtual-account list filters [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name, { clock: new StoppableClock() });
    let owner: PartnerAt<'sandbox'>;
    let other: PartnerAt<'sandbox'>;
    /** Account numbers by name, each created at its instant (UTC). */
    const accounts: Record<string, Json> = {};
    const CREATED: Array<[string, string]> = [
      ['a1', '2026-03-10T00:00:00.000Z'],
      ['a2', '2026-03-10T12:00:00.000Z'],
      ['a3', '2026-03-10T23:59:59.999Z'],
      ['a4', '2026-03-11T00:00:00.000Z'],
      ['a5', '2026-03-11T10:00:00.000Z'],
      ['a6', '2026-03-12T08:30:00.000Z'],
      ['a7', '2026-03-12T09:00:00.000Z'],
      ['a8', '2026-03-13T00:00:00.000Z'],
    ];
    /** The status each account is left in (a2, a5 deactivated; a3, a8 closed). */
    const STATUS: Record<string, string> = {
      a1: 'active',
      a2: 'inactive',
      a3: 'closed',
      a4: 'active',
      a5: 'inactive',
      a6: 'active',
      a7: 'active',
      a8: 'closed',
    };
    const mixedEmail = `Ngozi.Eze-${uniqueSuffix()}@Example.COM`;

    before(async () => {
      owner = await newPartner(suite, 'sandbox');
      other = await newPartner(suite, 'sandbox');
      for (const [name, iso] of CREATED) {
        const overrides = name === 'a3' ? { email: mixedEmail } : {};
        accounts[name] = await at(suite, iso, () => createAccount(suite.t, owner.sandboxKey, overrides));
        assert.equal(accounts[name]!['created_at'], iso);
      }
      for (const [name, status] of Object.entries(STATUS)) {
        if (status === 'active') continue;
        const action = status === 'inactive' ? 'deactivate' : 'close';
        const moved = await suite.t.api.post(
          lifecycleUrl(accounts[name]!['account_number'], action),
          { reason: 'filter test' },
          { token: owner.sandboxKey },
        );
        assert.equal(moved.status, 200, moved.text);
        assert.equal(moved.body.data.status, status);
      }
      // The closed account's e-mail is free again: a second account for it, created later.
      accounts['a9'] = await at(suite, '2026-03-14T06:00:00.000Z', () =>
        createAccount(suite.t, owner.sandboxKey, { email: mixedEmail.toUpperCase() }),
      );
      STATUS['a9'] = 'active';
      // Another partner's accounts on the same days never show.
      await at(suite, '2026-03-11T10:00:00.000Z', () => createAccount(suite.t, other.sandboxKey));
      await at(suite, '2026-03-11T11:00:00.000Z', () => createAccount(suite.t, other.sandboxKey));
    });

    /** Every item of the filtered list, two a page, as account names; checks order and no duplicates. */
    async function filtered(params: Record<string, string>, token = owner.sandboxKey): Promise<string[]> {
      const byNumber = new Map(
        Object.entries(accounts).map(([name, account]) => [account['account_number'], name]),
      );
      const pages = await allPages<Json>(suite.t, query(params), token, 2);
      const items = pages.flat();
      const names = items.map((item) => {
        const name = byNumber.get(item['account_number']);
        assert.ok(name, `an account that is not the owner's: ${item['account_number']}`);
        return name;
      });
      assert.equal(new Set(names).size, names.length, `duplicates in ${JSON.stringify(params)}`);
      const ids = items.map((item) => item['id'] as string);
      assert.deepEqual(ids, [...ids].sort().reverse(), 'newest first');
      return [...names].sort();
    }

    /** The names whose creation instant and status pass `keep` (the test's own record, not the app's). */
    const expect = (keep: (name: string, created: number) => boolean): string[] =>
      Object.keys(accounts)
        .filter((name) => keep(name, Date.parse(accounts[name]!['created_at'])))
        .sort();

    it('filters by status: active, inactive and closed, each page by page with limit=2', async () => {
      for (const status of ['active', 'inactive', 'closed']) {
        const names = await filtered({ status });
        assert.deepEqual(
          names,
          expect((name) => STATUS[name] === status),
          status,
        );
        const page = await suite.t.api.get(query({ status, limit: '100' }), { token: owner.sandboxKey });
        for (const item of page.body.data.items) assert.equal(item.status, status);
      }
      assert.deepEqual(
        await filtered({}),
        expect(() => true),
        'no filter: every account',
      );
    });

    it('filters by e-mail exactly and case-insensitively, closed accounts included', async () => {
      const lower = mixedEmail.toLowerCase();
      for (const spelling of [lower, mixedEmail, mixedEmail.toUpperCase(), `  ${mixedEmail}  `]) {
        assert.deepEqual(await filtered({ email: spelling }), ['a3', 'a9'], spelling);
      }
      const listed = await suite.t.api.get(query({ email: mixedEmail }), { token: owner.sandboxKey });
      for (const item of listed.body.data.items) assert.equal(item.customer.email, lower);
      assert.deepEqual(await filtered({ email: mixedEmail, status: 'closed' }), ['a3']);
      assert.deepEqual(await filtered({ email: mixedEmail, status: 'active' }), ['a9']);
      // Exact: neither a part of the address nor a near miss matches.
      assert.deepEqual(await filtered({ email: `x${lower}` }), []);
      assert.deepEqual(await filtered({ email: lower.replace('@', '1@') }), []);
      // Another partner's list for the same address is its own (empty).
      assert.deepEqual(
        (await allPages<Json>(suite.t, query({ email: lower }), other.sandboxKey, 2)).flat(),
        [],
      );
    });

    it('filters by created_from / created_to: a date alone is the whole UTC day, both bounds inclusive', async () => {
      const day = (date: string) => [
        Date.parse(`${date}T00:00:00.000Z`),
        Date.parse(`${date}T23:59:59.999Z`),
      ];
      const [d10Start, d10End] = day('2026-03-10') as [number, number];
      const [d11Start, d11End] = day('2026-03-11') as [number, number];
      const [, d12End] = day('2026-03-12') as [number, number];
      assert.deepEqual(
        await filtered({ created_from: '2026-03-10', created_to: '2026-03-10' }),
        expect((_, at) => at >= d10Start && at <= d10End),
      );
      assert.deepEqual(await filtered({ created_from: '2026-03-10', created_to: '2026-03-10' }), [
        'a1',
        'a2',
        'a3',
      ]);
      assert.deepEqual(
        await filtered({ created_from: '2026-03-11' }),
        expect((_, at) => at >= d11Start),
      );
      assert.deepEqual(
        await filtered({ created_to: '2026-03-11' }),
        expect((_, at) => at <= d11End),
      );
      assert.deepEqual(
        await filtered({ created_from: '2026-03-11', created_to: '2026-03-12' }),
        expect((_, at) => at >= d11Start && at <= d12End),
      );
      // Date-times with a zone: exact instants, inclusive at both ends.
      assert.deepEqual(
        await filtered({ created_from: '2026-03-10T12:00:00Z', created_to: '2026-03-11T00:00:00.000Z' }),
        ['a2', 'a3', 'a4'],
      );
      assert.deepEqual(
        await filtered({ created_from: '2026-03-10T12:00:00.001Z', created_to: '2026-03-10T23:59:59.998Z' }),
        [],
      );
      // +01:00 is an hour ahead of UTC: 01:00+01:00 is midnight UTC.
      assert.deepEqual(
        await filtered({
          created_from: '2026-03-11T01:00:00+01:00',
          created_to: '2026-03-11T01:00:00+01:00',
        }),
        ['a4'],
      );
      assert.deepEqual(await filtered({ created_to: '2026-03-10T18:59:59.999-05:00' }), ['a1', 'a2', 'a3']);
      assert.deepEqual(await filtered({ created_from: '2027-01-01' }), []);
    });

    it('combines status, e-mail and date filters with each other', async () => {
      assert.deepEqual(
        await filtered({ status: 'active', created_from: '2026-03-11' }),
        expect((name, at) => STATUS[name] === 'active' && at >= Date.parse('2026-03-11T00:00:00Z')),
      );
      assert.deepEqual(await filtered({ status: 'inactive', created_to: '2026-03-10' }), ['a2']);
      assert.deepEqual(
        await filtered({ status: 'closed', created_from: '2026-03-11', created_to: '2026-03-13' }),
        ['a8'],
      );
      assert.deepEqual(await filtered({ email: mixedEmail, created_from: '2026-03-11' }), ['a9']);
      assert.deepEqual(await filtered({ email: mixedEmail, created_to: '2026-03-13' }), ['a3']);
      assert.deepEqual(
        await filtered({
          email: mixedEmail,
          status: 'active',
          created_from: '2026-03-14',
          created_to: '2026-03-14',
        }),
        ['a9'],
      );
    });

    it('binds next_cursor to its filter and partner: another filter, no filter or another partner gets 422 on cursor', async () => {
      const { t } = suite;
      const token = owner.sandboxKey;
      const first = await t.api.get(query({ status: 'active', limit: '2' }), { token });
      assert.equal(first.status, 200, first.text);
      const cursor = first.body.data.next_cursor as string;
      assert.equal(typeof cursor, 'string');
      // The same filter takes it (the next page carries on from where the first stopped).
      const next = await t.api.get(query({ status: 'active', limit: '2', cursor }), { token });
      assert.equal(next.status, 200, next.text);
      const seen = [...first.body.data.items, ...next.body.data.items].map((item: Json) => item['id']);
      assert.equal(new Set(seen).size, 4);
      const misuses: Array<Record<string, string>> = [
        { status: 'inactive', cursor },
        { cursor },
        { status: 'active', created_from: '2026-03-10', cursor },
        { status: 'active', email: mixedEmail, cursor },
      ];
      for (const params of misuses) {
        assertError(await t.api.get(query({ limit: '2', ...params }), { token }), 422, 'VALIDATION_FAILED', {
          fields: ['cursor'],
          what: JSON.stringify(params),
        });
      }
      // A date-filtered cursor is bound to its bounds too.
      const dated = await t.api.get(query({ created_from: '2026-03-10', limit: '2' }), { token });
      const datedCursor = dated.body.data.next_cursor as string;
      assert.equal(typeof datedCursor, 'string');
      assertError(
        await t.api.get(query({ created_from: '2026-03-11', limit: '2', cursor: datedCursor }), { token }),
        422,
        'VALIDATION_FAILED',
        { fields: ['cursor'] },
      );
      assertError(
        await t.api.get(query({ status: 'active', limit: '2', cursor }), { token: other.sandboxKey }),
        422,
        'VALIDATION_FAILED',
        { fields: ['cursor'], what: "another partner's use of the cursor" },
      );
    });

    it('refuses a bad status, e-mail or date, and a range that ends before it starts, with 422 naming the field', async () => {
      const { t } = suite;
      const cases: Array<[Record<string, string>, string]> = [
        [{ status: 'frozen' }, 'status'],
        [{ status: 'ACTIVE' }, 'status'],
        [{ email: 'not-an-email' }, 'email'],
        [{ created_from: 'yesterday' }, 'created_from'],
        [{ created_from: '2026-02-30' }, 'created_from'],
        [{ created_from: '2026-3-1' }, 'created_from'],
        [{ created_from: '2026-03-10T12:00:00' }, 'created_from'],
        [{ created_from: '2026-03-10T25:00:00Z' }, 'created_from'],
        [{ created_to: '2026-13-01' }, 'created_to'],
        [{ created_to: '10/03/2026' }, 'created_to'],
        [{ created_from: '2026-03-11', created_to: '2026-03-10' }, 'created_to'],
        [{ created_from: '2026-03-10T12:00:00.001Z', created_to: '2026-03-10T12:00:00Z' }, 'created_to'],
      ];
      for (const [params, field] of cases) {
        assertError(await t.api.get(query(params), { token: owner.sandboxKey }), 422, 'VALIDATION_FAILED', {
          fields: [field],
          what: JSON.stringify(params),
        });
      }
    });
  });

  describe(`virtual-account statements [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name, { clock: new StoppableClock() });
    let a: PartnerAt<'sandbox'>;
    let b: PartnerAt<'sandbox'>;
    let live: PartnerAt<'live'>;
    before(async () => {
      a = await newPartner(suite, 'sandbox');
      b = await newPartner(suite, 'sandbox');
      live = await newPartner(suite, 'live');
    });

    it('states whole UTC days: opening = credits before from, total = credits within, closing = opening + total, to the kobo', async () => {
      const { t } = suite;
      const account = await createAccount(suite.t, a.sandboxKey);
      const before: Credit[] = [
        { at: '2026-01-01T00:00:00.000Z', amount: '9999999.99', kobo: 999_999_999, narration: 'first' },
        { at: '2026-01-15T10:00:00.000Z', amount: 1234.56, kobo: 123_456 },
        { at: '2026-01-31T23:59:59.999Z', amount: 0.01, kobo: 1, narration: 'last before' },
      ];
      const within: Credit[] = [
        {
          at: '2026-02-01T00:00:00.000Z',
          amount: '9999999.99',
          kobo: 999_999_999,
          narration: 'first within',
        },
        { at: '2026-02-10T08:00:00.000Z', amount: 9_999_999.99, kobo: 999_999_999 },
        { at: '2026-02-14T12:00:00.000Z', amount: '0.01', kobo: 1, narration: 'smallest' },
        { at: '2026-02-28T23:59:59.999Z', amount: '1234.56', kobo: 123_456, narration: 'last within' },
      ];
      const after: Credit[] = [
        { at: '2026-03-01T00:00:00.000Z', amount: 0.29, kobo: 29, narration: 'after' },
      ];
      const madeBefore = await creditAt(suite, a.sandboxKey, account['account_number'], before);
      const madeWithin = await creditAt(suite, a.sandboxKey, account['account_number'], within);
      const madeAfter = await creditAt(suite, a.sandboxKey, account['account_number'], after);

      const response = await t.api.get(statementUrl(account['account_number'], '2026-02-01', '2026-02-28'), {
        token: a.sandboxKey,
      });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.status, 'success');
      const statement = response.body.data;
      assert.equal(statement.account_number, account['account_number']);
      assert.equal(statement.account_name, account['account_name']);
      assert.equal(statement.from, '2026-02-01');
      assert.equal(statement.to, '2026-02-28');
      assertBalances(statement, { opening: sumKobo(before), total: sumKobo(within) }, 'February');
      // Past 2^31 kobo: no 32-bit sum anywhere.
      assert.ok(statement.closing_balance_kobo > 2 ** 31);
      assert.deepEqual(statement.transactions, madeWithin, 'the period’s credits, oldest first, as credited');
      // Each entry's balance_after runs on from the opening balance, entry by entry, to the closing one.
      let running = statement.opening_balance_kobo as number;
      for (const transaction of statement.transactions) {
        assert.deepEqual(Object.keys(transaction).sort(), TRANSACTION_FIELDS);
        assert.match(transaction.id, UUID);
        assert.match(transaction.created_at, ISO_INSTANT);
        assert.equal(transaction.type, 'credit');
        assert.equal(transaction.kind, 'inbound_transfer');
        assert.equal(transaction.amount, transaction.amount_kobo / 100);
        running += transaction.amount_kobo;
        assert.equal(transaction.balance_after_kobo, running);
        assert.equal(transaction.balance_after, running / 100);
        assert.equal(transaction.transfer_id, null);
      }
      assert.equal(running, statement.closing_balance_kobo);

      const periods: Array<[string, string, Credit[], Credit[], Json[]]> = [
        ['2026-01-31', '2026-01-31', before.slice(0, 2), before.slice(2), madeBefore.slice(2)],
        [
          '2026-02-28',
          '2026-03-01',
          [...before, ...within.slice(0, 3)],
          [within[3]!, ...after],
          [madeWithin[3]!, ...madeAfter],
        ],
        [
          '2026-01-01',
          '2026-03-31',
          [],
          [...before, ...within, ...after],
          [...madeBefore, ...madeWithin, ...madeAfter],
        ],
        ['2026-02-11', '2026-02-13', [...before, ...within.slice(0, 2)], [], []],
        ['2026-04-01', '2026-04-30', [...before, ...within, ...after], [], []],
        ['2025-12-01', '2025-12-31', [], [], []],
      ];
      for (const [from, to, opening, period, transactions] of periods) {
        const what = `${from}..${to}`;
        const read = await t.api.get(statementUrl(account['account_number'], from, to), { token: a.token });
        assert.equal(read.status, 200, read.text);
        assert.equal(read.body.data.from, from);
        assert.equal(read.body.data.to, to);
        assertBalances(read.body.data, { opening: sumKobo(opening), total: sumKobo(period) }, what);
        assert.deepEqual(read.body.data.transactions, transactions, what);
      }
      // The account's balance is the statement's closing balance once every credit is in.
      const current = await t.api.get(accountUrl(account['account_number']), { token: a.sandboxKey });
      assert.equal(current.body.data.balance_kobo, sumKobo([...before, ...within, ...after]));
    });

    it('answers an empty period with zero credits, no transactions and the opening balance as closing balance', async () => {
      const { t } = suite;
      const account = await createAccount(suite.t, a.sandboxKey);
      const fresh = await t.api.get(statementUrl(account['account_number'], '2026-05-01', '2026-05-31'), {
        token: a.sandboxKey,
      });
      assert.equal(fresh.status, 200, fresh.text);
      assertBalances(fresh.body.data, { opening: 0, total: 0 }, 'no credit ever');
      assert.deepEqual(fresh.body.data.transactions, []);
      const credits: Credit[] = [
        { at: '2026-04-03T09:00:00.000Z', amount: '1234.56', kobo: 123_456 },
        { at: '2026-04-30T23:59:59.999Z', amount: '0.01', kobo: 1 },
      ];
      await creditAt(suite, a.sandboxKey, account['account_number'], credits);
      const empty = await t.api.get(statementUrl(account['account_number'], '2026-05-01', '2026-05-31'), {
        token: a.sandboxKey,
      });
      assertBalances(empty.body.data, { opening: sumKobo(credits), total: 0 }, 'May');
      assert.deepEqual(empty.body.data.transactions, []);
    });

    it('refuses a missing, malformed or impossible from/to, from after to and more than 366 days with 422 naming the field', async () => {
      const { t } = suite;
      const account = await createAccount(suite.t, a.sandboxKey);
      const base = `${VIRTUAL_ACCOUNTS}/${account['account_number']}/statement`;
      assertError(await t.api.get(base, { token: a.sandboxKey }), 422, 'VALIDATION_FAILED', {
        fields: ['from', 'to'],
      });
      const cases: Array<[string, string]> = [
        ['?to=2026-01-31', 'from'],
        ['?from=2026-01-01', 'to'],
        ['?from=&to=2026-01-31', 'from'],
        ['?from=2026-01-01&to=', 'to'],
        ['?from=2026-1-1&to=2026-01-31', 'from'],
        ['?from=20260101&to=2026-01-31', 'from'],
        ['?from=2026-01-01T00:00:00Z&to=2026-01-31', 'from'],
        ['?from=01/01/2026&to=2026-01-31', 'from'],
        ['?from=2026-01-01&to=yesterday', 'to'],
        ['?from=2026-01-01&to=2026-01-31Z', 'to'],
        ['?from=2026-02-30&to=2026-03-31', 'from'],
        ['?from=2026-02-01&to=2026-02-29', 'to'],
        ['?from=2026-01-01&to=2026-13-01', 'to'],
        ['?from=2026-01-01&to=2026-04-31', 'to'],
        ['?from=2026-02-01&to=2026-01-31', 'to'],
        ['?from=2024-01-01&to=2025-01-01', 'to'],
        ['?from=2025-01-01&to=2026-01-02', 'to'],
      ];
      for (const [search, field] of cases) {
        assertError(await t.api.get(`${base}${search}`, { token: a.sandboxKey }), 422, 'VALIDATION_FAILED', {
          fields: [field],
          what: search,
        });
      }
      // The bounds that are allowed: a leap day, one day, and exactly 366 days (both inclusive).
      for (const [from, to] of [
        ['2024-02-29', '2024-02-29'],
        ['2025-01-01', '2026-01-01'],
        ['2024-01-01', '2024-12-31'],
      ] as const) {
        const read = await t.api.get(statementUrl(account['account_number'], from, to), {
          token: a.sandboxKey,
        });
        assert.equal(read.status, 200, `${from}..${to}: ${read.text}`);
      }
    });

    it('answers 404 for an unknown account, another partner’s account and an account of the other environment', async () => {
      const { t } = suite;
      const own = await createAccount(suite.t, a.sandboxKey);
      await creditAt(suite, a.sandboxKey, own['account_number'], [
        { at: '2026-06-01T12:00:00.000Z', amount: '5000', kobo: 500_000 },
      ]);
      const period = ['2026-06-01', '2026-06-30'] as const;
      const unknown = own['account_number'] === '0000000000' ? '0000000001' : '0000000000';
      assertError(
        await t.api.get(statementUrl(unknown, ...period), { token: a.sandboxKey }),
        404,
        'NOT_FOUND',
      );
      for (const token of [b.sandboxKey, b.token]) {
        assertError(
          await t.api.get(statementUrl(own['account_number'], ...period), { token }),
          404,
          'NOT_FOUND',
          { what: "another partner's account" },
        );
      }
      const sandboxAccount = await createAccount(suite.t, live.sandboxKey);
      const liveAccount = await createAccount(suite.t, live.liveKey);
      for (const token of [live.liveKey, live.liveToken]) {
        assertError(
          await t.api.get(statementUrl(sandboxAccount['account_number'], ...period), { token }),
          404,
          'NOT_FOUND',
          { what: 'a sandbox account from live' },
        );
      }
      for (const token of [live.sandboxKey, live.token]) {
        assertError(
          await t.api.get(statementUrl(liveAccount['account_number'], ...period), { token }),
          404,
          'NOT_FOUND',
          { what: 'a live account from sandbox' },
        );
      }
      // In its own environment each has its statement.
      const liveRead = await t.api.get(statementUrl(liveAccount['account_number'], ...period), {
        token: live.liveKey,
      });
      assert.equal(liveRead.status, 200, liveRead.text);
      assertBalances(liveRead.body.data, { opening: 0, total: 0 }, 'live');
      // An error asked for as CSV is still the JSON envelope.
      const csvMiss = await fetchStatement(suite, statementUrl(unknown, ...period), a.sandboxKey, 'text/csv');
      assert.equal(csvMiss.status, 404);
      assert.match(csvMiss.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(JSON.parse(csvMiss.text).error_code, 'NOT_FOUND');
      const owned = await t.api.get(statementUrl(own['account_number'], ...period), { token: a.sandboxKey });
      assert.equal(owned.status, 200, owned.text);
      assertBalances(owned.body.data, { opening: 0, total: 500_000 }, 'the owner reads it');
    });

    it('gives text/csv for Accept: text/csv: attachment, header row, a row per credit with naira amounts and a running balance matching the JSON', async () => {
      const { t } = suite;
      const account = await createAccount(suite.t, a.sandboxKey);
      const opening: Credit[] = [{ at: '2026-06-30T23:59:59.999Z', amount: '1234.56', kobo: 123_456 }];
      const within: Credit[] = [
        { at: '2026-07-01T00:00:00.000Z', amount: '0.01', kobo: 1, narration: 'Rent, July' },
        {
          at: '2026-07-02T10:00:00.000Z',
          amount: '9999999.99',
          kobo: 999_999_999,
          narration: 'He said "paid"',
        },
        { at: '2026-07-03T10:00:00.000Z', amount: 250, kobo: 25_000, narration: 'line one\nline two' },
        { at: '2026-07-04T10:00:00.000Z', amount: 0.1, kobo: 10 },
        { at: '2026-07-05T10:00:00.000Z', amount: '7.5', kobo: 750, narration: 'Payment ₦5,000 — Adé' },
        { at: '2026-07-31T23:59:59.999Z', amount: '1234.56', kobo: 123_456, narration: 'plain' },
      ];
      await creditAt(suite, a.sandboxKey, account['account_number'], [...opening, ...within]);
      const url = statementUrl(account['account_number'], '2026-07-01', '2026-07-31');
      const json = (await t.api.get(url, { token: a.sandboxKey })).body.data;
      assertBalances(json, { opening: sumKobo(opening), total: sumKobo(within) }, 'July');

      const csv = await fetchStatement(suite, url, a.sandboxKey, 'text/csv');
      assert.equal(csv.status, 200, csv.text);
      assert.match(csv.headers.get('content-type') ?? '', /^text\/csv(;|$)/);
      assert.equal(
        csv.headers.get('content-disposition'),
        `attachment; filename="statement-${account['account_number']}-2026-07-01-2026-07-31.csv"`,
      );
      assert.ok(csv.headers.get('x-request-id'), 'every response carries X-Request-Id');
      // RFC 4180 quoting as sent on the wire.
      assert.ok(csv.text.includes(',"Rent, July",'), csv.text);
      assert.ok(csv.text.includes(',"He said ""paid""",'), csv.text);
      assert.ok(csv.text.includes(',"line one\nline two",'), csv.text);
      const [header, ...rows] = parseCsv(csv.text);
      assert.deepEqual(header, CSV_HEADER);
      assert.equal(rows.length, within.length);
      let balance = json.opening_balance_kobo as number;
      let total = 0;
      rows.forEach((row, index) => {
        const credit = within[index]!;
        const transaction = json.transactions[index];
        assert.equal(row.length, CSV_HEADER.length, `row ${index}`);
        const [date, reference, type, kind, narration, name, number, bank, session, debit, amount, running] =
          row as [
            string,
            string,
            string,
            string,
            string,
            string,
            string,
            string,
            string,
            string,
            string,
            string,
          ];
        balance += credit.kobo;
        total += koboOf(amount);
        assert.equal(date, new Date(credit.at).toISOString());
        assert.equal(date, transaction.created_at);
        assert.equal(reference, transaction.reference);
        assert.equal(type, 'credit');
        assert.equal(kind, 'inbound_transfer');
        // A simulated credit comes from the sandbox's sender, with a NIBSS-shaped session id.
        assert.deepEqual(
          [name, number, bank, session],
          [
            transaction.counterparty.account_name,
            transaction.counterparty.account_number,
            transaction.counterparty.bank_code,
            transaction.session_id,
          ],
        );
        assert.deepEqual([name, number, bank], ['SANDBOX SENDER', '9990000001', '999998']);
        assert.match(session, /^[0-9]{30}$/);
        assert.equal(debit, '', 'a credit has no debit');
        assert.equal(narration, credit.narration ?? '');
        assert.equal(amount, naira(credit.kobo));
        assert.equal(koboOf(amount), transaction.amount_kobo);
        assert.equal(running, naira(balance), `running balance of row ${index}`);
      });
      assert.equal(total, json.total_credits_kobo, 'the CSV adds up to the JSON total');
      assert.equal(
        koboOf(rows.at(-1)![BALANCE]!),
        json.closing_balance_kobo,
        'the last balance is the closing one',
      );
      assert.equal(balance, json.closing_balance_kobo);

      // Accept preferences: CSV when listed before JSON; JSON otherwise.
      for (const [accept, wantsCsv] of [
        ['text/csv, application/json', true],
        ['TEXT/CSV', true],
        ['application/json, text/csv', false],
        ['*/*', false],
        ['application/json', false],
        [undefined, false],
      ] as const) {
        const answer = await fetchStatement(suite, url, a.sandboxKey, accept);
        assert.equal(answer.status, 200, answer.text);
        if (wantsCsv) assert.equal(answer.text, csv.text, `Accept: ${accept}`);
        else assert.deepEqual(JSON.parse(answer.text).data, json, `Accept: ${accept}`);
      }
      // An empty period is the header row alone; a bad period is the JSON error envelope.
      const empty = await fetchStatement(
        suite,
        statementUrl(account['account_number'], '2026-08-01', '2026-08-31'),
        a.sandboxKey,
        'text/csv',
      );
      assert.equal(empty.status, 200);
      assert.deepEqual(parseCsv(empty.text), [CSV_HEADER]);
      assertError(
        await t.api.get(statementUrl(account['account_number'], '2026-08-31', '2026-08-01'), {
          token: a.sandboxKey,
          headers: { accept: 'text/csv' },
        }),
        422,
        'VALIDATION_FAILED',
        { fields: ['to'] },
      );
    });

    it('prefixes a CSV cell that starts with =, +, -, @, tab or carriage return with an apostrophe (CSV injection)', async () => {
      const { t } = suite;
      const account = await createAccount(suite.t, a.sandboxKey);
      const narrations: Array<[string, string]> = [
        ['=SUM(A1:A9)', "'=SUM(A1:A9)"],
        ['+2348031234567', "'+2348031234567"],
        ['-100', "'-100"],
        ['@cmd', "'@cmd"],
        ['=HYPERLINK("http://evil.example","x")', `'=HYPERLINK("http://evil.example","x")`],
        ['safe = text', 'safe = text'],
        ["'already quoted", "'already quoted"],
      ];
      const credits = narrations.map(([narration], index) => ({
        at: `2026-09-0${index + 1}T12:00:00.000Z`,
        amount: '1.00',
        kobo: 100,
        narration,
      }));
      await creditAt(suite, a.sandboxKey, account['account_number'], credits);
      // Real credits do not pass through simulate-credit's trimming: a narration can start with a tab
      // or a carriage return.
      const raw: Array<[string, string]> = [
        ['\t=1+1', "'\t'=1+1"],
        ['\r=1+1', "'\r=1+1"],
      ];
      await insertBankCredits(
        suite,
        account['account_number'],
        raw.map(([narration], index) => ({ narration, at: `2026-09-2${index}T12:00:00.000Z` })),
      );
      const expected = [...narrations, ...raw].map(([, cell]) => cell);
      const url = statementUrl(account['account_number'], '2026-09-01', '2026-09-30');
      const json = (await t.api.get(url, { token: a.sandboxKey })).body.data;
      // JSON gives the narration as it is; only the CSV cell is defused.
      assert.deepEqual(
        json.transactions.map((transaction: Json) => transaction['narration']),
        [...narrations, ...raw].map(([narration]) => narration),
      );
      const csv = await fetchStatement(suite, url, a.sandboxKey, 'text/csv');
      assert.equal(csv.status, 200, csv.text);
      const [, ...rows] = parseCsv(csv.text);
      assert.deepEqual(
        rows.map((row) => row[NARRATION]),
        expected,
      );
      assert.ok(csv.text.includes(`,"'=HYPERLINK(""http://evil.example"",""x"")",`), csv.text);
      assert.ok(csv.text.includes(`,"'\r=1+1",`), 'a cell holding a carriage return is quoted');
      for (const row of rows) {
        for (const cell of row) assert.doesNotMatch(cell, /^[=+\-@\t\r]/, `cell ${JSON.stringify(cell)}`);
      }
      assert.equal(koboOf(rows.at(-1)![BALANCE]!), json.closing_balance_kobo);
    });

    it('quotes every CSV cell and defuses a formula that a reader splitting on ";", "," or tab would see', async () => {
      const account = await createAccount(suite.t, a.sandboxKey);
      const number = account['account_number'];
      await creditAt(suite, a.sandboxKey, number, [
        { at: '2026-11-01T12:00:00.000Z', amount: '1.00', kobo: 100, narration: "Refund;=cmd|' /C calc'!A0" },
        { at: '2026-11-02T12:00:00.000Z', amount: '1.00', kobo: 100, narration: 'Fee,@SUM(A1:A9)' },
        { at: '2026-11-03T12:00:00.000Z', amount: '1.00', kobo: 100, narration: 'Plain; text, here' },
      ]);
      await insertBankCredits(suite, number, [
        { narration: 'Note\t-2+3', at: '2026-11-04T12:00:00.000Z' },
        { narration: 'Two;;+1', at: '2026-11-05T12:00:00.000Z' },
      ]);
      const csv = await fetchStatement(
        suite,
        statementUrl(number, '2026-11-01', '2026-11-30'),
        a.sandboxKey,
        'text/csv',
      );
      assert.equal(csv.status, 200, csv.text);
      // Every record is quoted cells separated by commas, the header row included.
      assert.match(csv.text, /^(?:"(?:[^"]|"")*"(?:,"(?:[^"]|"")*")*\r\n)+$/, csv.text);
      const [header, ...rows] = parseCsv(csv.text);
      assert.deepEqual(header, CSV_HEADER);
      assert.deepEqual(
        rows.map((row) => row[NARRATION]),
        [
          "'Refund;'=cmd|' /C calc'!A0",
          "'Fee,'@SUM(A1:A9)",
          'Plain; text, here',
          "'Note\t'-2+3",
          "'Two;;'+1",
        ],
      );
      // A reader that splits each line on another separator (a ";" locale, tab-separated) and drops a
      // field's opening quote still finds no field that starts a formula.
      for (const separator of [';', ',', '\t']) {
        for (const line of csv.text.split('\r\n')) {
          for (const field of line.split(separator)) {
            assert.doesNotMatch(
              field.replace(/^"/, ''),
              /^[=+\-@\t\r]/,
              `split on ${JSON.stringify(separator)}: ${JSON.stringify(line)}`,
            );
          }
        }
      }
    });

    it('reads a statement of thousands of credits page by page without losing or repeating one at a page edge', async () => {
      const { t } = suite;
      const account = await createAccount(suite.t, a.sandboxKey);
      // 4,500 ledger rows, several to a millisecond (so page edges fall inside equal created_at), spread
      // over two days of the period and one before it.
      const day = Date.parse('2026-10-10T00:00:00.000Z');
      const rows = (
        await seedEntries(
          t.db,
          account['account_number'],
          Array.from({ length: 4500 }, (_, index) => ({
            kobo: 1 + ((index * 7919) % 100_000),
            narration: `Row ${index}`,
            at: index < 500 ? day - 86_400_000 + index : day + Math.floor(index / 3) * 37,
          })),
        )
      ).map((row) => ({ id: row.id, amount_kobo: row.amount_kobo, created_at: row.created_at }));
      const inPeriod = rows
        .filter((row) => row.created_at >= day)
        .sort((x, y) => x.created_at - y.created_at || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
      const url = statementUrl(account['account_number'], '2026-10-10', '2026-10-11');
      const json = (await t.api.get(url, { token: a.sandboxKey })).body.data;
      assert.deepEqual(
        json.transactions.map((transaction: Json) => transaction['id']),
        inPeriod.map((row) => row.id),
        'every row of the period once, in (created_at, id) order',
      );
      const sum = (list: typeof rows) => list.reduce((total, row) => total + row.amount_kobo, 0);
      assert.equal(json.total_credits_kobo, sum(inPeriod));
      assert.equal(json.opening_balance_kobo, sum(rows.slice(0, 500)));
      const csv = await fetchStatement(suite, url, a.sandboxKey, 'text/csv');
      const [, ...lines] = parseCsv(csv.text);
      assert.equal(lines.length, 4000);
      assert.equal(koboOf(lines.at(-1)![BALANCE]!), json.closing_balance_kobo);
    });

    it('keeps a statement consistent while credits land: its total is always the sum of its transactions', async () => {
      const { t } = suite;
      const account = await createAccount(suite.t, a.sandboxKey);
      // Yesterday to tomorrow (UTC), so that midnight passing during the test changes nothing.
      const day = (offset: number) =>
        new Date(t.clock.now() + offset * 86_400_000).toISOString().slice(0, 10);
      const url = statementUrl(account['account_number'], day(-1), day(1));
      let credited = 0;
      for (let round = 0; round < 15; round++) {
        const credits = Array.from({ length: 6 }, () =>
          t.api.post(creditUrl(account['account_number']), { amount: '0.01' }, { token: a.sandboxKey }),
        );
        const reads = Array.from({ length: 6 }, () => t.api.get(url, { token: a.sandboxKey }));
        const answers = await Promise.all([...credits, ...reads]);
        for (const credit of answers.slice(0, 6)) assert.equal(credit.status, 201, credit.text);
        credited += 6;
        for (const read of answers.slice(6)) {
          assert.equal(read.status, 200, read.text);
          const statement = read.body.data;
          const listed = statement.transactions.reduce((sum: number, tx: Json) => sum + tx['amount_kobo'], 0);
          assert.equal(statement.total_credits_kobo, listed, `round ${round}: total vs transactions`);
          assert.equal(statement.closing_balance_kobo, statement.opening_balance_kobo + listed);
          assert.ok(listed <= credited);
        }
      }
      const final = await t.api.get(url, { token: a.sandboxKey });
      assertBalances(final.body.data, { opening: 0, total: credited }, 'after every credit');
    });

    it('keeps the statement of an inactive account and of a closed one', async () => {
      const { t } = suite;
      const account = await createAccount(suite.t, a.sandboxKey);
      const credits: Credit[] = [
        { at: '2026-10-01T09:00:00.000Z', amount: '1234.56', kobo: 123_456, narration: 'before the pause' },
        { at: '2026-10-02T09:00:00.000Z', amount: '0.01', kobo: 1 },
      ];
      const made = await creditAt(suite, a.sandboxKey, account['account_number'], credits);
      const url = statementUrl(account['account_number'], '2026-10-01', '2026-10-31');
      for (const [action, status, refusal] of [
        ['deactivate', 'inactive', 'ACCOUNT_INACTIVE'],
        ['close', 'closed', 'ACCOUNT_CLOSED'],
      ] as const) {
        const moved = await t.api.post(
          lifecycleUrl(account['account_number'], action),
          { reason: 'statement test' },
          { token: a.sandboxKey },
        );
        assert.equal(moved.status, 200, moved.text);
        assert.equal(moved.body.data.status, status);
        assertError(
          await t.api.post(creditUrl(account['account_number']), { amount: 1 }, { token: a.sandboxKey }),
          409,
          refusal,
        );
        const read = await t.api.get(url, { token: a.sandboxKey });
        assert.equal(read.status, 200, `${status}: ${read.text}`);
        assertBalances(read.body.data, { opening: 0, total: sumKobo(credits) }, status);
        assert.deepEqual(read.body.data.transactions, made);
        const csv = await fetchStatement(suite, url, a.sandboxKey, 'text/csv');
        assert.equal(csv.status, 200, `${status}: ${csv.text}`);
        assert.equal(parseCsv(csv.text).length, 1 + credits.length);
      }
    });
  });
}
