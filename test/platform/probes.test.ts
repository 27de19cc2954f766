import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError, until } from '../support/assertions.js';
import type { ApiResponse } from '../support/http.js';

/*
 * The probes (issue 32; docs/operations.md, "Probes"): /livez and its alias /healthz while the
 * process serves; /readyz only while the database answers, every migration is applied and each
 * worker loop of the instance passes, else 503 naming the failing checks.
 */

const READY = {
  database: 'ok',
  migrations: 'ok',
  storage: 'ok',
  webhook_worker: 'ok',
  mail_worker: 'ok',
  transfer_worker: 'ok',
};

function assertNotReady(response: ApiResponse, checks: Record<string, string>): void {
  assertError(response, 503, 'SERVICE_UNAVAILABLE', { data: true });
  assert.equal(response.headers.get('retry-after'), '5');
  assert.deepEqual((response.body.data as { checks: unknown }).checks, { ...READY, ...checks });
}

for (const dialect of DIALECTS) {
  describe(`probes [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);

    it('answers /livez and /healthz 200, and /readyz 200 with every check', async () => {
      for (const path of ['/livez', '/healthz']) {
        const response = await suite.t.api.get(path);
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.data.status, 'ok');
      }
      const ready = await suite.t.api.get('/readyz');
      assert.equal(ready.status, 200, ready.text);
      assert.deepEqual(ready.body.data, { status: 'ready', checks: READY });
    });

    it('answers /readyz 503 naming a stopped worker, and 200 again once it runs', async () => {
      await suite.t.app.workers.webhooks.stop();
      try {
        assertNotReady(await suite.t.api.get('/readyz'), { webhook_worker: 'stopped' });
        assert.equal((await suite.t.api.get('/livez')).status, 200);
      } finally {
        suite.t.app.workers.webhooks.start();
      }
      assert.equal((await suite.t.api.get('/readyz')).status, 200);
    });

    it('answers /readyz 503 naming migrations while one of this version is not applied', async () => {
      const table = sql.table('kysely_migration');
      const { rows } = await sql<{ name: string }>`select name from ${table} order by name desc`.execute(
        suite.t.db,
      );
      const latest = rows[0]!.name;
      const [row] = (await sql`select * from ${table} where name = ${latest}`.execute(suite.t.db))
        .rows as Array<Record<string, unknown>>;
      await sql`delete from ${table} where name = ${latest}`.execute(suite.t.db);
      try {
        assertNotReady(await suite.t.api.get('/readyz'), { migrations: 'pending' });
      } finally {
        await sql`insert into ${table} (name, timestamp) values (${latest}, ${row!['timestamp']})`.execute(
          suite.t.db,
        );
      }
      assert.equal((await suite.t.api.get('/readyz')).status, 200);
    });
  });

  describe(`probes of an instance without the transfer worker [${dialect.name}]`, {
    skip: dialect.skip,
  }, () => {
    const suite = useApp(dialect.name, { env: { TRANSFER_WORKER: 'false' } });

    it('reports the transfer worker off, and is ready', async () => {
      const ready = await suite.t.api.get('/readyz');
      assert.equal(ready.status, 200, ready.text);
      assert.equal(ready.body.data.checks.transfer_worker, 'off');
    });
  });
  // On SQLite a statement runs synchronously on the event loop: one that waits blocks /readyz itself
  // (no answer, which a probe counts as a failure), so `stuck` can only be seen on PostgreSQL.
  describe(`probes of a worker whose pass does not return [${dialect.name}]`, {
    skip: dialect.skip || (dialect.name === 'sqlite' ? 'SQLite statements block the event loop' : false),
  }, () => {
    const suite = useApp(dialect.name, {
      env: { WORKER_STUCK_AFTER_MS: '300', WEBHOOK_POLL_MS: '50', DATABASE_STATEMENT_TIMEOUT_MS: '0' },
    });

    it('answers /readyz 503 naming the stuck worker while its statement waits, and 200 once it returns', async () => {
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked: () => void = () => undefined;
      const lockTaken = new Promise<void>((resolve) => {
        locked = resolve;
      });
      // The webhook worker's every pass starts by updating outbox_events: it waits behind this lock.
      const holder = suite.t.db.transaction().execute(async (trx) => {
        await sql`lock table outbox_events in access exclusive mode`.execute(trx);
        locked();
        await released;
      });
      try {
        await lockTaken;
        await until('the webhook worker reported stuck', async () => {
          const response = await suite.t.api.get('/readyz');
          return response.status === 503 && response.body.data.checks.webhook_worker === 'stuck';
        });
        assertNotReady(await suite.t.api.get('/readyz'), { webhook_worker: 'stuck' });
        assert.equal((await suite.t.api.get('/livez')).status, 200);
      } finally {
        release();
        await holder;
      }
      await until('ready again', async () => (await suite.t.api.get('/readyz')).status === 200);
    });
  });
}
