import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS, TEST_DATABASE_URL, useApp } from '../support/app.js';
import { until } from '../support/assertions.js';
import { createAccount, newPartner } from '../support/partners.js';
import { VIRTUAL_ACCOUNTS } from '../support/paths.js';

/*
 * A query whose client has gone (issue 32, "Faults"; docs/operations.md, "Faults"): a read waits on
 * a table lock the test holds; the client closes its connection; the statement is cancelled within
 * a second (pg_stat_activity no longer shows it) and its connection is back in the pool, while the
 * lock is still held. PostgreSQL only: SQLite runs each statement to completion synchronously.
 */

const postgres = DIALECTS.find((dialect) => dialect.name === 'postgres')!;

describe('the query of a client that has gone is cancelled [postgres]', { skip: postgres.skip }, () => {
  const applicationName = `baas-gone-${randomBytes(4).toString('hex')}`;
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('application_name', applicationName);
  // Far above the test's one second: only a cancellation ends the waiting statement in time.
  const suite = useApp('postgres', {
    env: { DATABASE_URL: url.toString(), DATABASE_STATEMENT_TIMEOUT_MS: '60000' },
  });

  let apiKey = '';
  before(async () => {
    apiKey = (await newPartner(suite, 'sandbox')).sandboxKey;
    await createAccount(suite.t, apiKey);
  });

  /** The app's statements on virtual_accounts now running, and how many of its backends are busy. */
  async function activity() {
    const { rows } = await sql<{ query: string; state: string; wait_event_type: string | null }>`
      select query, state, wait_event_type from pg_stat_activity
      where application_name = ${applicationName} and pid <> pg_backend_pid()`.execute(suite.t.db);
    const active = rows.filter((row) => row.state === 'active');
    return {
      waiting: active.filter(
        (row) => row.query.includes('virtual_accounts') && row.wait_event_type === 'Lock',
      ),
      active,
    };
  }

  it('cancels the waiting statement of an aborted list within a second and frees its connection', async () => {
    const { db, database } = suite.t;
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked: () => void = () => undefined;
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = db.transaction().execute(async (trx) => {
      await sql`lock table ${sql.id(database.pgSchema!, 'virtual_accounts')} in access exclusive mode`.execute(
        trx,
      );
      locked();
      await released;
    });
    try {
      await lockTaken;
      const aborts = Array.from({ length: 3 }, () => new AbortController());
      const requests = aborts.map((controller) =>
        fetch(`${suite.t.url}${VIRTUAL_ACCOUNTS}?limit=5`, {
          headers: { authorization: `Bearer ${apiKey}` },
          signal: controller.signal,
        }).then(
          () => 'answered',
          () => 'aborted',
        ),
      );
      await until('the lists wait on the lock', async () => (await activity()).waiting.length >= 3);
      for (const controller of aborts) controller.abort();
      const abortedAt = Date.now();
      assert.deepEqual(await Promise.all(requests), ['aborted', 'aborted', 'aborted']);
      await until(
        'the waiting statements are gone',
        async () => (await activity()).active.length === 0,
        2_000,
      );
      const took = Date.now() - abortedAt;
      // 71-94 ms in our runs: a connection opened for pg_cancel_backend, then this poll's step.
      assert.ok(took <= 1_500, `gone after ${took} ms`);
      const logged = () => suite.t.logs.some((line) => line.includes('its running statements are cancelled'));
      await until('the cancellation logged', logged);
    } finally {
      release();
      await holder;
    }
    // The pool is whole: a list is answered at once.
    const answered = await suite.t.api.get(`${VIRTUAL_ACCOUNTS}?limit=5`, { token: apiKey });
    assert.equal(answered.status, 200, answered.text);
    assert.ok(
      !suite.t.logs.some((line) => line.includes('"level":"error"') && line.includes('57014')),
      'a cancelled statement was logged as an error',
    );
  });

  it('leaves a read whose client stays to finish once the lock is released', async () => {
    const { db, database } = suite.t;
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked: () => void = () => undefined;
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = db.transaction().execute(async (trx) => {
      await sql`lock table ${sql.id(database.pgSchema!, 'virtual_accounts')} in access exclusive mode`.execute(
        trx,
      );
      locked();
      await released;
    });
    await lockTaken;
    const pending = suite.t.api.get(`${VIRTUAL_ACCOUNTS}?limit=5`, { token: apiKey });
    const waiting = await until('the list waits on the lock', async () => {
      const count = (await activity()).waiting.length;
      return count > 0 && count;
    });
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    assert.equal(
      (await activity()).waiting.length,
      waiting,
      'a statement whose client stays is left to wait',
    );
    release();
    await holder;
    assert.equal((await pending).status, 200);
  });
});
