import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createTestDatabase, DIALECTS, TEST_DATABASE_URL, type TestDatabase } from '../support/app.js';
import { until } from '../support/assertions.js';
import { Api } from '../support/http.js';
import {
  childDatabaseUrl,
  type ServerProcess,
  serverEnv,
  spawnServer,
  stopServer,
  waitUntilReady,
} from '../support/server-process.js';
import { freePort } from '../support/smtp-sink.js';

const postgres = DIALECTS.find((dialect) => dialect.name === 'postgres')!;

/** Ends every server connection whose application_name is `name`, as a failover or restart would. */
async function terminateConnections(name: string): Promise<number> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    const result = await client.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1',
      [name],
    );
    return result.rowCount ?? 0;
  } finally {
    await client.end();
  }
}

describe('PostgreSQL connections that die while idle [postgres]', { skip: postgres.skip }, () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let api: Api;
  const applicationName = `baas_pool_${randomBytes(4).toString('hex')}`;

  before(async () => {
    database = await createTestDatabase('postgres');
    server = spawnServer(
      serverEnv(database, {
        PORT: String(await freePort()),
        DATABASE_URL: `${childDatabaseUrl(database)}&application_name=${applicationName}`,
      }),
    );
    await waitUntilReady(server);
    api = new Api(server.url);
  });
  after(async () => {
    await stopServer(server);
    await database?.drop();
  });

  it('logs the failure at error level and goes on serving on new connections', async () => {
    // Several concurrent readiness checks leave several idle connections in the pool.
    const checks = await Promise.all(Array.from({ length: 4 }, () => api.get('/readyz')));
    for (const check of checks) assert.equal(check.status, 200, check.text);
    assert.ok((await terminateConnections(applicationName)) > 0, 'no connection of the server was found');

    const line = await until(
      'the log line about the idle connection',
      () =>
        server
          .output()
          .split('\n')
          .find((text) => text.includes('idle PostgreSQL connection failed')),
      10_000,
    );
    const logged = JSON.parse(line) as { level: string; err?: { message?: string } };
    assert.equal(logged.level, 'error', line);
    assert.match(logged.err?.message ?? '', /terminat/i, line);

    assert.equal(server.child.exitCode, null, `the server exited:\n${server.output()}`);
    const ready = await api.get('/readyz');
    assert.equal(ready.status, 200, ready.text);
  });
});
