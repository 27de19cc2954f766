import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError, until } from '../support/assertions.js';
import { csvRecords } from '../support/csv.js';
import { uniqueSuffix } from '../support/factories.js';
import { createAccount, newPartner, type PartnerAt } from '../support/partners.js';
import { creditUrl, TRANSFERS, transferUrl } from '../support/paths.js';

/*
 * GET /services/transfers with Accept: text/csv: every transfer the filters match (not one page),
 * newest first, RFC 4180 with formulas defused, amounts in naira; one partner and environment only.
 */

// biome-ignore lint/suspicious/noExplicitAny: objects as the API returns them.
type Json = any;

const TRANSFER_CSV_COLUMNS = [
  'id',
  'reference',
  'status',
  'source_account_number',
  'amount',
  'fee',
  'currency',
  'beneficiary_account_name',
  'beneficiary_account_number',
  'beneficiary_bank_code',
  'beneficiary_bank_name',
  'narration',
  'session_id',
  'failure_reason',
  'environment',
  'created_at',
  'updated_at',
];
const SANDBOX_BANK_CODE = '999999';
const GTBANK = '000013';

/** A 10-digit account at another bank whose last two digits choose the sandbox bank's answer. */
const external = (ending: string) => `${String(randomInt(0, 1e8)).padStart(8, '0')}${ending}`;

for (const dialect of DIALECTS) {
  describe(`transfers CSV export [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name, { env: { TRANSFER_REQUERY_MS: '200', TRANSFER_POLL_MS: '50' } });
    let owner: PartnerAt<'sandbox'>;
    let other: PartnerAt<'sandbox'>;
    let first: string;
    let second: string;
    /** The owner's transfers as GET /services/transfers/{id} reads them once settled, oldest first. */
    const made: Json[] = [];

    const csv = (query: string, token = owner.sandboxKey) =>
      fetch(`${suite.t.api.baseUrl}${TRANSFERS}?${query}`, {
        headers: { authorization: `Bearer ${token}`, accept: 'text/csv' },
      });
    const rowsOf = async (query: string) => {
      const response = await csv(query);
      assert.equal(response.status, 200);
      return csvRecords(await response.text(), TRANSFER_CSV_COLUMNS);
    };

    async function send(source: string, overrides: Record<string, unknown>): Promise<Json> {
      const response = await suite.t.api.post(
        TRANSFERS,
        {
          source_account_number: source,
          amount: '1000.00',
          bank_code: GTBANK,
          reference: `csv-${uniqueSuffix()}`,
          ...overrides,
        },
        { token: owner.sandboxKey },
      );
      assert.equal(response.status, 202, response.text);
      const id = response.body.data.id as string;
      return until(
        `transfer ${id} to settle`,
        async () => {
          const read = await suite.t.api.get(transferUrl(id), { token: owner.sandboxKey });
          return ['successful', 'failed'].includes(read.body.data.status) ? read.body.data : undefined;
        },
        15_000,
        50,
      );
    }

    before(async () => {
      owner = await newPartner(suite, 'sandbox');
      other = await newPartner(suite, 'sandbox');
      first = (await createAccount(suite.t, owner.sandboxKey)).account_number;
      second = (await createAccount(suite.t, owner.sandboxKey)).account_number;
      for (const account of [first, second]) {
        const credit = await suite.t.api.post(
          creditUrl(account),
          { amount: '50000' },
          { token: owner.sandboxKey },
        );
        assert.equal(credit.status, 201, credit.text);
      }
      const target = await createAccount(suite.t, other.sandboxKey, {
        first_name: '@Quote"Comma,',
        last_name: 'Okafor',
      });
      made.push(
        await send(first, {
          bank_code: SANDBOX_BANK_CODE,
          account_number: target.account_number,
          amount: '1234.56',
          narration: '=HYPERLINK("http://x")',
        }),
      );
      made.push(await send(first, { account_number: external('05') }));
      made.push(await send(second, { account_number: external('10'), amount: '20000' }));
      made.push(await send(first, { account_number: external('10'), narration: 'Rent;-2+3' }));
      // Another partner's transfer never shows in the owner's export.
      const foreign = (await createAccount(suite.t, other.sandboxKey)).account_number;
      await suite.t.api.post(creditUrl(foreign), { amount: '5000' }, { token: other.sandboxKey });
      const theirs = await suite.t.api.post(
        TRANSFERS,
        {
          source_account_number: foreign,
          amount: '100',
          bank_code: GTBANK,
          account_number: external('10'),
          reference: `csv-${uniqueSuffix()}`,
        },
        { token: other.sandboxKey },
      );
      assert.equal(theirs.status, 202, theirs.text);
    });

    it('streams every transfer, not one page, newest first, as RFC 4180 CSV with formulas defused', async () => {
      const response = await csv('limit=1');
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/csv; charset=utf-8/);
      assert.match(
        response.headers.get('content-disposition') ?? '',
        /attachment; filename="transfers\.csv"/,
      );
      const rows = csvRecords(await response.text(), TRANSFER_CSV_COLUMNS);
      assert.deepEqual(
        rows.map((row) => row['id']),
        made.map((transfer) => transfer.id).reverse(),
        "the owner's four, newest first, none of the other partner's",
      );
      const byId = new Map(rows.map((row) => [row['id'], row]));

      const book = byId.get(made[0].id)!;
      assert.deepEqual(book, {
        id: made[0].id,
        reference: made[0].reference,
        status: 'successful',
        source_account_number: first,
        amount: '1234.56',
        fee: '0.00',
        currency: 'NGN',
        beneficiary_account_name: made[0].beneficiary.account_name,
        beneficiary_account_number: made[0].beneficiary.account_number,
        beneficiary_bank_code: SANDBOX_BANK_CODE,
        beneficiary_bank_name: made[0].beneficiary.bank_name,
        narration: `'=HYPERLINK("http://x")`,
        session_id: made[0].session_id ?? '',
        failure_reason: '',
        environment: 'sandbox',
        created_at: made[0].created_at,
        updated_at: made[0].updated_at,
      });
      assert.match(book['beneficiary_account_name']!, /@Quote"Comma,/, 'quotes and commas survive');

      const failed = byId.get(made[1].id)!;
      assert.equal(failed['status'], 'failed');
      assert.equal(failed['failure_reason'], made[1].failure_reason);
      assert.match(failed['failure_reason']!, /do not honor/);
      assert.equal(failed['amount'], '1000.00');
      assert.equal(failed['fee'], '10.75');

      const big = byId.get(made[2].id)!;
      assert.equal(big['amount'], '20000.00');
      assert.equal(big['fee'], '26.88');
      assert.equal(big['session_id'], made[2].session_id);
      assert.match(big['session_id']!, /^\d{30}$/);
      assert.equal(big['updated_at'], made[2].updated_at);

      // A formula start right after a separator is defused too, for readers splitting on ';'.
      assert.equal(byId.get(made[3].id)!['narration'], "'Rent;'-2+3");
    });

    it('exports what the list filters select, and only a header row when nothing matches', async () => {
      const ids = async (query: string) => (await rowsOf(query)).map((row) => row['id']);
      assert.deepEqual(await ids('status=failed'), [made[1].id]);
      assert.deepEqual(await ids(`source_account_number=${first}`), [made[3].id, made[1].id, made[0].id]);
      assert.deepEqual(await ids(`source_account_number=${first}&status=successful`), [
        made[3].id,
        made[0].id,
      ]);
      assert.deepEqual(await ids(`reference=${made[2].reference}`), [made[2].id]);
      const today = made[0].created_at.slice(0, 10);
      assert.equal((await ids(`created_from=${today}&created_to=${today}`)).length, 4);
      assert.deepEqual(await ids('created_from=2000-01-01&created_to=2000-01-02'), []);
      const none = await csv('status=reversed');
      assert.equal(await none.text(), `${TRANSFER_CSV_COLUMNS.map((c) => `"${c}"`).join(',')}\r\n`);
    });

    it('gives another partner its own transfers only', async () => {
      const rows = csvRecords(await (await csv('', other.sandboxKey)).text(), TRANSFER_CSV_COLUMNS);
      assert.equal(rows.length, 1);
      assert.equal(
        rows.some((row) => made.some((transfer) => transfer.id === row['id'])),
        false,
      );
    });

    it('answers bad filters with the JSON error envelope, and JSON without Accept: text/csv', async () => {
      const bad = await csv('status=lost');
      assert.equal(bad.status, 422);
      assert.match(bad.headers.get('content-type') ?? '', /^application\/json/);
      const body = (await bad.json()) as Json;
      assert.equal(body.error_code, 'VALIDATION_FAILED');
      assert.ok(body.errors.status);
      assertError(
        await suite.t.api.get(`${TRANSFERS}?source_account_number=12`, { token: owner.sandboxKey }),
        422,
        'VALIDATION_FAILED',
        { fields: ['source_account_number'] },
      );
      const unauthenticated = await fetch(`${suite.t.api.baseUrl}${TRANSFERS}`, {
        headers: { accept: 'text/csv' },
      });
      assert.equal(unauthenticated.status, 401);
      const json = await suite.t.api.get(`${TRANSFERS}?limit=1`, { token: owner.sandboxKey });
      assert.equal(json.status, 200);
      assert.equal(json.body.data.items.length, 1);
      assert.ok(json.body.data.next_cursor);
    });
  });
}
