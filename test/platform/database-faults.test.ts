import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { DIALECTS, TEST_DATABASE_URL, useApp } from '../support/app.js';
import { assertError, until } from '../support/assertions.js';
import { customerBody } from '../support/factories.js';
import { createAccount, newPartner } from '../support/partners.js';
import { CREATE_ACCOUNT, VIRTUAL_ACCOUNTS } from '../support/paths.js';

/*
 * What a request gets when the database cannot serve it (issue 32, "Faults"): 503
 * SERVICE_UNAVAILABLE with Retry-After and the error envelope, never a 500, and nothing half-written.
 * The app reaches PostgreSQL through a TCP proxy the test can cut (refusing new connections and
 * dropping the open ones) or turn into a black hole (accepting and never answering); a statement
 * waits on a table lock the test holds.
 */

const postgres = DIALECTS.find((dialect) => dialect.name === 'postgres')!;
const STATEMENT_TIMEOUT_MS = 500;
const POOL_TIMEOUT_MS = 1_000;

const METRICS_TOKEN = 'metrics-token-0123456789abcdefghijklmnop';

type ProxyMode = 'forward' | 'refuse' | 'black-hole';

/** A TCP proxy to PostgreSQL whose behaviour the test switches. */
class DatabaseProxy {
  mode: ProxyMode = 'forward';
  private readonly sockets = new Set<net.Socket>();
  private readonly target = new URL(TEST_DATABASE_URL);
  private readonly server = net.createServer((client) => this.accept(client));

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const url = new URL(TEST_DATABASE_URL);
    url.host = `127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
    return url.toString();
  }

  /** Switches mode; leaving `forward` drops every open connection, as a database restart would. */
  set(mode: ProxyMode): void {
    this.mode = mode;
    if (mode !== 'forward') for (const socket of this.sockets) socket.destroy();
  }

  private accept(client: net.Socket): void {
    this.track(client);
    if (this.mode === 'refuse') {
      client.destroy();
      return;
    }
    if (this.mode === 'black-hole') return;
    const upstream = net.connect(Number(this.target.port || 5432), this.target.hostname);
    this.track(upstream);
    client.pipe(upstream).pipe(client);
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.sockets.delete(socket));
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

describe('database faults answer 503 SERVICE_UNAVAILABLE [postgres]', { skip: postgres.skip }, () => {
  const proxy = new DatabaseProxy();
  let proxyUrl = '';
  before(async () => {
    proxyUrl = await proxy.start();
  });
  const suite = useApp('postgres', () => ({
    env: {
      DATABASE_URL: proxyUrl,
      DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      DATABASE_POOL_TIMEOUT_MS: String(POOL_TIMEOUT_MS),
      METRICS_TOKEN,
    },
  }));
  after(async () => {
    await proxy.stop();
  });

  let token = '';
  before(async () => {
    token = (await newPartner(suite, 'sandbox')).token;
  });

  const list = () => suite.t.api.get(`${VIRTUAL_ACCOUNTS}?limit=5`, { token });

  function assertUnavailable(response: Awaited<ReturnType<typeof list>>, message: RegExp): void {
    assertError(response, 503, 'SERVICE_UNAVAILABLE');
    assert.equal(response.headers.get('retry-after'), '5');
    assert.match(response.body.message, message);
  }

  it('a statement past DATABASE_STATEMENT_TIMEOUT_MS (a lock wait) is cancelled: 503, the write kept nothing, a retry with the same key succeeds', async () => {
    const email = `locked-${Date.now()}@example.com`;
    const key = `faults-${Date.now()}`;
    const create = () =>
      suite.t.api.post(CREATE_ACCOUNT, customerBody({ email }), {
        token,
        headers: { 'idempotency-key': key },
      });
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
      const started = Date.now();
      assertUnavailable(await list(), /too busy/);
      assertUnavailable(await create(), /too busy/);
      assert.ok(Date.now() - started < 10 * STATEMENT_TIMEOUT_MS + 5_000, 'the requests waited for the lock');
    } finally {
      release();
      await holder;
    }
    const rows = await db
      .selectFrom('virtual_accounts')
      .select('id')
      .where('customer_email', '=', email)
      .execute();
    assert.deepEqual(rows, [], 'the cancelled creation kept nothing');
    const retried = await create();
    assert.equal(retried.status, 201, retried.text);
    assert.equal((await list()).status, 200);
  });

  it('PostgreSQL unreachable (connections dropped, new ones refused): 503 with Retry-After, then served again', async () => {
    assert.equal((await list()).status, 200);
    proxy.set('refuse');
    try {
      for (let attempt = 0; attempt < 3; attempt++) assertUnavailable(await list(), /cannot be reached/);
      const write = await suite.t.api.post(CREATE_ACCOUNT, customerBody(), { token });
      assertUnavailable(write, /cannot be reached/);
    } finally {
      proxy.set('forward');
    }
    const back = await list();
    assert.equal(back.status, 200, back.text);
    await createAccount(suite.t, token);
  });

  it('/readyz answers 503 naming the database while PostgreSQL is unreachable; /livez stays 200', async () => {
    proxy.set('refuse');
    try {
      const ready = await suite.t.api.get('/readyz');
      assertError(ready, 503, 'SERVICE_UNAVAILABLE', { data: true });
      assert.equal(ready.headers.get('retry-after'), '5');
      const checks = (ready.body.data as { checks: Record<string, string> }).checks;
      assert.equal(checks['database'], 'unreachable');
      assert.equal(checks['migrations'], 'unknown');
      assert.equal((await suite.t.api.get('/livez')).status, 200);
      // The scrape still answers, without the queue series it could not read.
      const scraped = await fetch(`${suite.t.url}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      const text = await scraped.text();
      assert.equal(scraped.status, 200, text);
      assert.match(text, /^http_server_request_duration_seconds_count\{/m);
      assert.doesNotMatch(text, /^baas_outbox_backlog\{/m);
    } finally {
      proxy.set('forward');
    }
    const back = await suite.t.api.get('/readyz');
    assert.equal(back.status, 200, back.text);
    await until('the queue series back in the scrape', async () => {
      const scraped = await fetch(`${suite.t.url}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      return /^baas_outbox_backlog\{worker="webhooks"\} \d+$/m.test(await scraped.text());
    });
  });

  it('no connection within DATABASE_POOL_TIMEOUT_MS (a server that accepts and never answers): 503', async () => {
    proxy.set('black-hole');
    try {
      // The pooled connections the switch dropped fail at once (503 as well); then a request must
      // open a connection, which the black hole never completes.
      let waited = 0;
      for (let attempt = 0; attempt < 12 && waited < POOL_TIMEOUT_MS; attempt++) {
        const started = Date.now();
        assertUnavailable(await list(), /cannot be reached/);
        waited = Date.now() - started;
      }
      assert.ok(
        waited >= POOL_TIMEOUT_MS - 50,
        `no request waited for the pool timeout (last: ${waited} ms)`,
      );
      assert.ok(waited < POOL_TIMEOUT_MS + 5_000, `answered only after ${waited} ms`);
    } finally {
      proxy.set('forward');
    }
    const back = await list();
    assert.equal(back.status, 200, back.text);
  });
});

describe('database faults answer 503 SERVICE_UNAVAILABLE [sqlite]', () => {
  const suite = useApp('sqlite');
  let token = '';
  before(async () => {
    token = (await newPartner(suite, 'sandbox')).token;
  });

  it('a write that finds the database locked past its busy wait: 503 with Retry-After, nothing kept, then served', async () => {
    const file = suite.t.env['DATABASE_URL']!.slice('sqlite:'.length);
    const other = new SQLite(file);
    const email = `busy-${Date.now()}@example.com`;
    try {
      // Another process's write transaction holds the database's one write lock.
      other.exec('begin immediate');
      const refused = await suite.t.api.post(CREATE_ACCOUNT, customerBody({ email }), { token });
      assertError(refused, 503, 'SERVICE_UNAVAILABLE');
      assert.equal(refused.headers.get('retry-after'), '5');
      assert.match(refused.body.message, /too busy/);
    } finally {
      if (other.inTransaction) other.exec('rollback');
      other.close();
    }
    const rows = await suite.t.db
      .selectFrom('virtual_accounts')
      .select('id')
      .where('customer_email', '=', email)
      .execute();
    assert.deepEqual(rows, [], 'the refused creation kept nothing');
    await createAccount(suite.t, token, { email });
  });
});
