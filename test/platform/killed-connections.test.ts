import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS, TEST_DATABASE_URL, useApp } from '../support/app.js';
import { customerBody } from '../support/factories.js';
import type { ApiResponse } from '../support/http.js';
import { createAccount, newPartner } from '../support/partners.js';
import { accountUrl, CREATE_ACCOUNT, VIRTUAL_ACCOUNTS } from '../support/paths.js';

/*
 * Killed connections (issue 32, "Faults"; docs/operations.md, "Faults"): PostgreSQL ends the app's
 * pooled connections (pg_terminate_backend, as an operator, a failover or a pooler does) between
 * requests and under concurrent reads. A read whose connection died is run once more on another:
 * no 500, and the reads succeed. (SQLite has no connection to lose.)
 */

const postgres = DIALECTS.find((dialect) => dialect.name === 'postgres')!;

describe('killed PostgreSQL connections [postgres]', { skip: postgres.skip }, () => {
  // The app's connections carry this name in pg_stat_activity, so only they are terminated.
  const applicationName = `baas-killed-${randomBytes(4).toString('hex')}`;
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('application_name', applicationName);
  const suite = useApp('postgres', { env: { DATABASE_URL: url.toString() } });

  let apiKey = '';
  let accountNumber = '';
  before(async () => {
    apiKey = (await newPartner(suite, 'sandbox')).sandboxKey;
    accountNumber = String((await createAccount(suite.t, apiKey)).account_number);
  });

  const reads = [
    () => suite.t.api.get(`${VIRTUAL_ACCOUNTS}?limit=5`, { token: apiKey }),
    () => suite.t.api.get(accountUrl(accountNumber), { token: apiKey }),
  ];
  const read = (index: number) => reads[index % reads.length]!();

  /** Ends every connection the app holds; how many there were. */
  async function terminate(): Promise<number> {
    const { rows } = await sql<{ ended: boolean }>`
      select pg_terminate_backend(pid) as ended from pg_stat_activity
      where application_name = ${applicationName} and pid <> pg_backend_pid()`.execute(suite.t.db);
    return rows.filter((row) => row.ended).length;
  }

  /** Fills the pool: `n` reads at once each hold a connection. */
  const warm = async (n: number) => {
    for (const response of await Promise.all(Array.from({ length: n }, (_, index) => read(index))))
      assert.equal(response.status, 200, response.text);
  };

  const retries = () => suite.t.logs.filter((line) => line.includes('it was run again on another')).length;

  function assertServed(responses: ApiResponse[], what: string): void {
    for (const [index, response] of responses.entries())
      assert.equal(response.status, 200, `${what}, request ${index}: ${response.text}`);
  }

  it('reads after the connections were terminated between requests all succeed', async () => {
    for (let round = 0; round < 3; round++) {
      await warm(6);
      assert.ok((await terminate()) > 0, 'the app held connections');
      const responses: ApiResponse[] = [];
      for (let index = 0; index < 6; index++) responses.push(await read(index));
      assertServed(responses, `round ${round}`);
    }
  });

  it('concurrent reads when the connections are terminated all succeed, and again while they run', async () => {
    const before = retries();
    for (let round = 0; round < 3; round++) {
      await warm(8);
      assert.ok((await terminate()) > 0, 'the app held connections');
      assertServed(await Promise.all(Array.from({ length: 8 }, (_, index) => read(index))), `round ${round}`);
    }
    // Terminated while reads are in flight (once a round: a read is run again once, so a second
    // kill landing on its retry would fail it, as it should).
    for (let round = 0; round < 3; round++) {
      const responses: ApiResponse[] = [];
      const load = Array.from({ length: 6 }, async (_, worker) => {
        for (let index = 0; index < 10; index++) responses.push(await read(worker + index));
      });
      await new Promise((resolve) => setTimeout(resolve, 30));
      await terminate();
      await Promise.all(load);
      assertServed(responses, `under load, round ${round}`);
    }
    assert.ok(retries() > before, 'no read was run again: the connections were not found dead');
  });

  it('a write on a killed connection is never run again by the service: 503 or done, and a retry with its key answers once', async () => {
    const answers: number[] = [];
    for (let round = 0; round < 3; round++) {
      await warm(4);
      assert.ok((await terminate()) > 0);
      const key = `killed-${round}-${Date.now()}`;
      const body = customerBody();
      const create = () =>
        suite.t.api.post(CREATE_ACCOUNT, body, { token: apiKey, headers: { 'idempotency-key': key } });
      const first = await create();
      // A statement that may have reached the database is not sent twice: the client retries.
      assert.ok([201, 503].includes(first.status), first.text);
      answers.push(first.status);
      const again = await create();
      assert.equal(again.status, 201, again.text);
      const rows = await suite.t.db
        .selectFrom('virtual_accounts')
        .select('id')
        .where('customer_email', '=', String(body.email))
        .execute();
      assert.equal(rows.length, 1, `round ${round}: one account, whatever the first answer was`);
    }
  });
});
