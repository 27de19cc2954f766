import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { CompiledQuery, type Kysely } from 'kysely';
import { filteredAccounts } from '../../src/modules/virtual-accounts/virtual-accounts.repository.js';
import { newId } from '../../src/platform/crypto/tokens.js';
import type { Database } from '../../src/platform/db/schema.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { csvRecords } from '../support/csv.js';
import { uniqueSuffix } from '../support/factories.js';
import { allPages } from '../support/http.js';
import { createAccount, newPartner, type PartnerAt } from '../support/partners.js';
import { creditUrl, VIRTUAL_ACCOUNTS } from '../support/paths.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary payloads.
type Json = Record<string, any>;

const SEARCH_INDEXES = [
  'virtual_accounts_number_prefix_idx',
  'virtual_accounts_email_prefix_idx',
  'virtual_accounts_full_name_prefix_idx',
  'virtual_accounts_last_name_prefix_idx',
];

/** Copies of `template` under new ids, numbers and e-mails: `count` more accounts of its partner. */
async function seedAccounts(db: Kysely<Database>, template: Json, count: number, tag: string) {
  const base = await db
    .selectFrom('virtual_accounts')
    .selectAll()
    .where('account_number', '=', template['account_number'])
    .executeTakeFirstOrThrow();
  for (let start = 0; start < count; start += 500) {
    const rows = [];
    for (let i = start; i < Math.min(count, start + 500); i++) {
      rows.push({
        ...base,
        id: newId(),
        // Outside the NUBAN range the app issues from, never colliding with a real one.
        account_number: `9${String(i).padStart(5, '0')}${tag}`.slice(0, 10),
        customer_email: `seed-${tag}-${i}@example.com`,
        first_name: 'Seed',
        last_name: `Row${i}`,
      });
    }
    await db.insertInto('virtual_accounts').values(rows).execute();
  }
}

for (const dialect of DIALECTS) {
  describe(`virtual-account search, order and totals [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);
    let owner: PartnerAt<'sandbox'>;
    let other: PartnerAt<'sandbox'>;
    const suffix = uniqueSuffix();
    const accounts: Json[] = [];
    const list = (query: string, token = owner.token) =>
      suite.t.api.get(`${VIRTUAL_ACCOUNTS}?${query}`, { token });

    before(async () => {
      owner = await newPartner(suite, 'sandbox');
      other = await newPartner(suite, 'sandbox');
      const people = [
        ['Tunde', 'Bakare', `tunde-${suffix}@example.com`],
        ['Ngozi', 'Eze', `ngozi-${suffix}@example.com`],
        ['Amaka', 'Bakare-Obi', `amaka-${suffix}@acme.ng`],
        ['Emeka', 'Okafor', `bakare-${suffix}@example.com`],
        ['Ada', 'Lovelace', `ada-${suffix}@example.com`],
      ];
      for (const [first_name, last_name, email] of people) {
        accounts.push(await createAccount(suite.t, owner.token, { first_name, last_name, email }));
      }
      // Another partner's namesake: never in the owner's results.
      await createAccount(suite.t, other.token, { first_name: 'Tunde', last_name: 'Bakare' });
    });

    const names = (response: Json) =>
      response['body'].data.items.map((a: Json) => a['customer'].email.split('-')[0]).sort();

    it('finds accounts by a prefix of the last name, full name or e-mail, case-insensitively', async () => {
      const byLastName = await list('q=BAKARE');
      assert.equal(byLastName.status, 200, byLastName.text);
      // Bakare, Bakare-Obi (last names) and bakare-… (e-mail); not the other partner's Tunde Bakare.
      assert.deepEqual(names(byLastName), ['amaka', 'bakare', 'tunde']);
      assert.equal(byLastName.body.data.total, 3);
      assert.equal(byLastName.body.data.total_capped, false);

      assert.deepEqual(names(await list(`q=${encodeURIComponent('ngozi e')}`)), ['ngozi']);
      assert.deepEqual(names(await list(`q=${encodeURIComponent(`ADA-${suffix}@`)}`)), ['ada']);
      assert.deepEqual(names(await list('q=okafor')), ['bakare']);
    });

    it('finds an account by a prefix of its number, and nothing by a substring', async () => {
      const number = accounts[1]!['account_number'] as string;
      const response = await list(`q=${number.slice(0, 10)}`);
      assert.deepEqual(
        response.body.data.items.map((a: Json) => a['account_number']),
        [number],
      );
      const prefix = await list(`q=${number.slice(0, 6)}`);
      assert.ok(prefix.body.data.items.some((a: Json) => a['account_number'] === number));
      assert.equal((await list(`q=${number.slice(3)}`)).body.data.total, 0);
      assert.equal((await list('q=akare')).body.data.total, 0);
    });

    it('treats % and _ in q as text, not wildcards', async () => {
      for (const q of ['%', '_', 'b%', '%bakare']) {
        const response = await list(`q=${encodeURIComponent(q)}`);
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.data.total, 0, q);
      }
    });

    it('combines q with the other filters and the total counts the filtered list', async () => {
      const response = await list(`q=bakare&email=${encodeURIComponent(`tunde-${suffix}@example.com`)}`);
      assert.deepEqual(names(response), ['tunde']);
      assert.equal(response.body.data.total, 1);
      const all = await list('limit=2');
      assert.equal(all.body.data.items.length, 2);
      assert.equal(all.body.data.total, 5, 'total counts every page, not this one');
    });

    it('orders by creation, newest first by default or oldest first with order=asc, across pages', async () => {
      const created = accounts.map((a) => a['account_number']);
      const desc = (await allPages<Json>(suite.t, VIRTUAL_ACCOUNTS, owner.token, 2)).flat();
      assert.deepEqual(
        desc.map((a) => a['account_number']),
        [...created].reverse(),
      );
      const asc = (await allPages<Json>(suite.t, `${VIRTUAL_ACCOUNTS}?order=asc`, owner.token, 2)).flat();
      assert.deepEqual(
        asc.map((a) => a['account_number']),
        created,
      );
      const ascSearch = (
        await allPages<Json>(suite.t, `${VIRTUAL_ACCOUNTS}?order=asc&q=bakare`, owner.token, 1)
      )
        .flat()
        .map((a) => a['customer'].email.split('-')[0]);
      assert.deepEqual(ascSearch, ['tunde', 'amaka', 'bakare']);
    });

    it('refuses a cursor issued for the other order or another search (422 on cursor)', async () => {
      const first = await list('limit=2');
      const cursor = encodeURIComponent(first.body.data.next_cursor);
      assertError(await list(`limit=2&order=asc&cursor=${cursor}`), 422, 'VALIDATION_FAILED', {
        fields: ['cursor'],
      });
      assertError(await list(`limit=2&q=b&cursor=${cursor}`), 422, 'VALIDATION_FAILED', {
        fields: ['cursor'],
      });
      assert.equal((await list(`limit=2&order=desc&cursor=${cursor}`)).status, 200);
    });

    it('refuses a bad order and an over-long q (422)', async () => {
      assertError(await list('order=newest'), 422, 'VALIDATION_FAILED', { fields: ['order'] });
      assertError(await list(`q=${'a'.repeat(101)}`), 422, 'VALIDATION_FAILED', { fields: ['q'] });
    });

    it('stops counting above 10,000 with total_capped, and the search reads only its indexes', async () => {
      const big = await newPartner(suite, 'sandbox');
      const template = await createAccount(suite.t, big.token, { first_name: 'Zed', last_name: 'Template' });
      await seedAccounts(suite.t.db, template, 10_000, suffix.slice(0, 4));
      const capped = await list('limit=1', big.token);
      assert.equal(capped.status, 200, capped.text);
      assert.equal(capped.body.data.total, 10_000);
      assert.equal(capped.body.data.total_capped, true);
      assert.equal(capped.body.data.items.length, 1);
      const narrow = await list('q=row99', big.token);
      // Row99 and Row990…Row999, Row9900…Row9999.
      assert.equal(narrow.body.data.total, 111);
      assert.equal(narrow.body.data.total_capped, false);

      const db = suite.t.db;
      await db.executeQuery(CompiledQuery.raw('analyze'));
      const row = await db
        .selectFrom('virtual_accounts')
        .select(['partner_id', 'environment'])
        .where('account_number', '=', template['account_number'])
        .executeTakeFirstOrThrow();
      const query = filteredAccounts(
        db,
        { partnerId: row.partner_id, environment: row.environment },
        { search: 'row99' },
      )
        .selectAll()
        .orderBy('id', 'desc')
        .limit(21)
        .compile();
      const explain = dialect.name === 'postgres' ? 'explain ' : 'explain query plan ';
      const plan = await db.executeQuery<Json>(CompiledQuery.raw(explain + query.sql, [...query.parameters]));
      const text = plan.rows.map((r) => Object.values(r).join(' ')).join('\n');
      console.log(`[${dialect.name}] plan of q=row99:\n${text}`);
      for (const index of SEARCH_INDEXES) assert.ok(text.includes(index), `${index} not used:\n${text}`);
      assert.doesNotMatch(text, /Seq Scan|SCAN virtual_accounts(?! USING)/);
    });
  });
}

const ACCOUNT_CSV_COLUMNS = [
  'account_number',
  'account_name',
  'bank_code',
  'bank_name',
  'status',
  'first_name',
  'last_name',
  'email',
  'phone',
  'balance',
  'available_balance',
  'environment',
  'created_at',
];

for (const dialect of DIALECTS) {
  describe(`virtual-account CSV export [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);
    let owner: PartnerAt<'sandbox'>;
    const created: Json[] = [];
    const csv = (query: string) =>
      fetch(`${suite.t.api.baseUrl}${VIRTUAL_ACCOUNTS}?${query}`, {
        headers: { authorization: `Bearer ${owner.token}`, accept: 'text/csv' },
      });

    before(async () => {
      owner = await newPartner(suite, 'sandbox');
      const other = await newPartner(suite, 'sandbox');
      created.push(
        await createAccount(suite.t, owner.token, { first_name: '=cmd|calc', last_name: 'Quote"Comma,' }),
      );
      for (let i = 0; i < 4; i++)
        created.push(await createAccount(suite.t, owner.token, { last_name: `Okoro${i}` }));
      await createAccount(suite.t, other.token);
      const credit = await suite.t.api.post(
        creditUrl(created[1]!['account_number']),
        { amount: '1500.50' },
        { token: owner.token },
      );
      assert.equal(credit.status, 201, credit.text);
    });

    it('streams every matching account, not one page, as RFC 4180 CSV with formulas defused', async () => {
      const response = await csv('limit=1');
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/csv; charset=utf-8/);
      assert.match(
        response.headers.get('content-disposition') ?? '',
        /attachment; filename="virtual-accounts\.csv"/,
      );
      const rows = csvRecords(await response.text(), ACCOUNT_CSV_COLUMNS);
      assert.deepEqual(
        rows.map((row) => row['account_number']),
        created.map((a) => a['account_number']).reverse(),
        'all five of the owner, newest first, none of the other partner',
      );
      const first = rows.at(-1)!;
      assert.equal(first['first_name'], "'=cmd|calc");
      assert.equal(first['last_name'], 'Quote"Comma,');
      assert.equal(first['email'], created[0]!['customer'].email);
      assert.equal(first['status'], 'active');
      assert.equal(first['created_at'], created[0]!['created_at']);
      assert.equal(first['balance'], '0.00');
      const credited = rows.find((row) => row['account_number'] === created[1]!['account_number'])!;
      assert.equal(credited['balance'], '1500.50');
      assert.equal(credited['available_balance'], '1500.50');
      // +234… starts like a formula: defused with an apostrophe.
      assert.equal(credited['phone'], `'${created[1]!['customer'].phone}`);
    });

    it('exports the search and order the list was given', async () => {
      const rows = csvRecords(await (await csv('q=okoro&order=asc')).text(), ACCOUNT_CSV_COLUMNS);
      assert.deepEqual(
        rows.map((row) => row['last_name']),
        ['Okoro0', 'Okoro1', 'Okoro2', 'Okoro3'],
      );
      const none = await (await csv('q=nobody')).text();
      assert.deepEqual(csvRecords(none, ACCOUNT_CSV_COLUMNS), []);
    });

    it('still answers JSON without Accept: text/csv', async () => {
      const response = await suite.t.api.get(`${VIRTUAL_ACCOUNTS}?limit=1`, { token: owner.token });
      assert.equal(response.status, 200);
      assert.equal(response.body.data.total, 5);
    });
  });
}
