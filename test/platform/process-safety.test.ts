import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/app.js';
import { until } from '../support/assertions.js';
import { uniqueEmail } from '../support/factories.js';
import { RESEND_OTP } from '../support/paths.js';
import { heldRequest, refusesConnections } from '../support/raw-http.js';
import {
  type ServerProcess,
  serverEnv,
  spawnServer,
  stopServer,
  waitUntilReady,
} from '../support/server-process.js';
import { freePort } from '../support/smtp-sink.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHILD = path.join(ROOT, 'test', 'support', 'safety-net-child.ts');

interface Child extends ServerProcess {
  process: ChildProcess;
  port: number;
  /** Parsed JSON log lines. */
  logs(): Array<Record<string, unknown>>;
}

async function startChild(database: TestDatabase, extra: Record<string, string> = {}): Promise<Child> {
  const port = await freePort();
  const server = spawnServer(serverEnv(database, { PORT: String(port), ...extra }), {
    script: CHILD,
    stdin: 'pipe',
  });
  await waitUntilReady(server);
  const logs = () =>
    server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { ...server, process: server.child, port, logs };
}

for (const dialect of DIALECTS) {
  describe(`the process safety net [${dialect.name}]`, { skip: dialect.skip }, () => {
    let database: TestDatabase;
    const children: Child[] = [];
    const start = async (extra?: Record<string, string>) => {
      const child = await startChild(database, extra);
      children.push(child);
      return child;
    };

    before(async () => {
      database = await createTestDatabase(dialect.name);
    });
    after(async () => {
      for (const child of children) {
        if (child.process.exitCode === null && child.process.signalCode === null) {
          child.process.kill('SIGKILL');
          await child.exited;
        }
      }
      await database?.drop();
    });

    it('logs an unhandled promise rejection at error level with its stack and keeps serving', async () => {
      const child = await start();
      child.process.stdin?.write('reject\n');
      const line = await until('the rejection log line', () =>
        child.logs().find((entry) => String(entry['msg']).includes('unhandled promise rejection')),
      );
      assert.equal(line['level'], 'error', JSON.stringify(line));
      const err = line['err'] as { message?: string; stack?: string } | undefined;
      assert.equal(err?.message, 'deliberate rejection that nobody handles');
      assert.match(err?.stack ?? '', /safety-net-child\.ts/, 'the stack is logged');

      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(child.process.exitCode, null, `the process ended:\n${child.output()}`);
      const served = await child.api.post(RESEND_OTP, { email: uniqueEmail() });
      assert.equal(served.status, 200, served.text);
      child.process.kill('SIGTERM');
      assert.equal(await child.exited, 0, child.output());
    });

    it('on an uncaught exception logs it as fatal with the stack, lets the request in flight finish, closes the database and exits 1', async () => {
      const child = await start();
      const inFlight = await heldRequest(
        `${child.api.baseUrl}${RESEND_OTP}`,
        JSON.stringify({ email: uniqueEmail('inflight') }),
      );
      child.process.stdin?.write('throw\n');

      const fatal = await until('the fatal log line', () =>
        child.logs().find((entry) => entry['level'] === 'fatal'),
      );
      assert.match(String(fatal['msg']), /uncaught exception/);
      const err = fatal['err'] as { message?: string; stack?: string } | undefined;
      assert.equal(err?.message, 'deliberate failure thrown from a timer');
      assert.match(err?.stack ?? '', /safety-net-child\.ts/, 'the stack is logged');

      await until('new connections to be refused', () => refusesConnections(child.port), 5000, 20);
      assert.equal(child.process.exitCode, null, 'the process waits for the request in flight');

      inFlight.finish();
      const response = await inFlight.response;
      assert.equal(response.status, 200, response.body);
      assert.equal(JSON.parse(response.body).status, 'success');

      assert.equal(await child.exited, 1, child.output());
      assert.ok(
        child.logs().some((entry) => entry['msg'] === 'shutdown complete'),
        `the app closed (database included) before exiting:\n${child.output()}`,
      );
      if (dialect.name === 'sqlite') {
        // SQLite removes the WAL file when its last connection closes cleanly.
        assert.equal(
          existsSync(path.join(database.dataDir, 'baas.sqlite-wal')),
          false,
          'the database was closed',
        );
      }
    });

    it('exits 1 once the grace period is over even if a request in flight never finishes', async () => {
      const child = await start({ SAFETY_GRACE_MS: '500' });
      const inFlight = await heldRequest(
        `${child.api.baseUrl}${RESEND_OTP}`,
        JSON.stringify({ email: uniqueEmail('inflight') }),
      );
      void inFlight.response.catch(() => undefined);
      const started = Date.now();
      child.process.stdin?.write('throw\n');
      assert.equal(await child.exited, 1, child.output());
      const elapsed = Date.now() - started;
      assert.ok(elapsed >= 400 && elapsed < 10_000, `exited after ${elapsed} ms`);
      assert.ok(
        child.logs().some((entry) => String(entry['msg']).includes('did not finish within 500 ms')),
        child.output(),
      );
    });
  });
}

describe('the server process when nothing reads its log any more', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase('sqlite');
  });
  after(async () => {
    await database?.drop();
  });

  it('still shuts down on SIGTERM and exits 0 (a log line it cannot write is dropped)', async () => {
    const server = spawnServer(serverEnv(database, { PORT: String(await freePort()) }));
    try {
      await waitUntilReady(server);
      // The log collector falls behind (lines left unread), then goes away: the server's next
      // write fails with ECONNRESET rather than EPIPE.
      server.child.stdout?.pause();
      server.child.stderr?.pause();
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 100));
      server.child.stdout?.destroy();
      server.child.stderr?.destroy();
      await new Promise((resolve) => setTimeout(resolve, 300));
      server.child.kill('SIGTERM');
      const code = await Promise.race([
        server.exited,
        new Promise<string>((resolve) =>
          setTimeout(() => resolve('still running 10 s after SIGTERM'), 10_000),
        ),
      ]);
      assert.equal(code, 0);
    } finally {
      await stopServer(server);
    }
  });
});
