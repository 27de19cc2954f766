import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, DIALECTS, type DialectName, type TestDatabase } from '../support/app.js';
import { until } from '../support/assertions.js';
import { registration } from '../support/factories.js';
import type { Api } from '../support/http.js';
import { LOGIN, REGISTER, VERIFY_OTP } from '../support/paths.js';
import { heldRequest, refusesConnections } from '../support/raw-http.js';
import {
  childDatabaseUrl,
  type ServerProcess,
  spawnServer,
  waitUntilReady,
} from '../support/server-process.js';
import { codeIn as codeInMail, freePort, outboxMail } from '../support/smtp-sink.js';

const START_TIMEOUT_MS = 30_000;

/** Server environment for a dialect: SQLite by default under DATA_DIR, or a PostgreSQL schema of its own. */
function databaseEnv(dialect: DialectName, database: TestDatabase): Record<string, string> {
  if (dialect === 'sqlite') return { DATA_DIR: database.dataDir };
  return { DATA_DIR: database.dataDir, DATABASE_URL: childDatabaseUrl(database) };
}

const codeIn = (text: string): string => {
  const code = codeInMail(text);
  assert.ok(code, `no code in: ${text}`);
  return code;
};

for (const dialect of DIALECTS) {
  describe(`the server process [${dialect.name}]`, { skip: dialect.skip }, () => {
    let database: TestDatabase;
    let cwd: string;
    let server: ServerProcess;
    let api: Api;

    before(async () => {
      database = await createTestDatabase(dialect.name);
      cwd = mkdtempSync(path.join(tmpdir(), 'baas-server-cwd-'));
      server = spawnServer(
        {
          LOG_LEVEL: 'info',
          NODE_ENV: 'development',
          PORT: String(await freePort()),
          ...databaseEnv(dialect.name, database),
        },
        { cwd },
      );
      await waitUntilReady(server, '/healthz');
      api = server.api;
    });
    after(async () => {
      if (server && server.child.exitCode === null) {
        server.child.kill('SIGKILL');
        await server.exited;
      }
      await database?.drop();
      if (cwd) rmSync(cwd, { recursive: true, force: true });
    });

    it('serves /healthz and /readyz, with its data and key under DATA_DIR', async () => {
      for (const probe of ['/healthz', '/readyz']) {
        const response = await api.get(probe);
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.status, 'success');
      }
      if (dialect.name === 'sqlite') assert.ok(existsSync(path.join(database.dataDir, 'baas.sqlite')));
      assert.ok(
        existsSync(path.join(database.dataDir, 'data-encryption.key')),
        'dev key generated under DATA_DIR',
      );
      // Logs are JSON lines.
      for (const line of server.stdout().split('\n').filter(Boolean)) {
        assert.doesNotThrow(() => JSON.parse(line), `not JSON: ${line}`);
      }
    });

    it('without SMTP_URL writes the OTP e-mail under DATA_DIR/outbox and keeps the code out of the log', async () => {
      const body = registration();
      const registered = await api.post(REGISTER, body);
      assert.equal(registered.status, 201, registered.text);
      const mail = await outboxMail(database.dataDir, body.email);
      const otp = codeIn(mail.text);
      await until('the log line about the outbox', () => server.stdout().includes('outbox'));
      assert.doesNotMatch(
        server.stdout(),
        new RegExp(`(?<![0-9A-Za-z])${otp}(?![0-9A-Za-z])`),
        'the code was logged',
      );
      assert.ok(!server.stdout().includes(body.password), 'the password was logged');

      const verified = await api.post(VERIFY_OTP, { email: body.email, otp });
      assert.equal(verified.status, 200, verified.text);
    });

    it('names the outbox file in the log line, so a developer can find the code', async () => {
      const body = registration();
      assert.equal((await api.post(REGISTER, body)).status, 201);
      const mail = await outboxMail(database.dataDir, body.email);
      await until('the log line about the outbox', () => server.stdout().includes(body.email));
      const line = server
        .stdout()
        .split('\n')
        .find((l) => l.includes(body.email) && l.includes('outbox'));
      assert.ok(line, 'a log line about the outbox e-mail');
      assert.ok(line.includes(path.basename(mail.file)), `the log line does not name the file: ${line}`);
    });

    it('on SIGTERM stops accepting, lets in-flight requests finish and exits with code 0', async () => {
      const body = registration();
      assert.equal((await api.post(REGISTER, body)).status, 201);
      const otp = codeIn((await outboxMail(database.dataDir, body.email)).text);
      assert.equal((await api.post(VERIFY_OTP, { email: body.email, otp })).status, 200);

      const credentials = JSON.stringify({ email: body.email, password: body.password });
      const inFlight = await Promise.all(
        Array.from({ length: 4 }, () => heldRequest(`${server.url}${LOGIN}`, credentials)),
      );

      server.child.kill('SIGTERM');
      const port = Number(new URL(server.url).port);
      await until('the shutdown log line', () => server.stdout().includes('shutting down'));
      let refused = false;
      for (let i = 0; i < 100 && !refused; i++) {
        refused = await refusesConnections(port);
        if (!refused) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.ok(refused, 'new connections are still accepted after SIGTERM');

      for (const request of inFlight) request.finish();
      const responses = await Promise.all(inFlight.map((request) => request.response));
      for (const response of responses) {
        assert.equal(response.status, 200, response.body);
        assert.equal(JSON.parse(response.body).data.token_type, 'Bearer');
      }
      await server.exited;
      const code = server.child.exitCode;
      assert.equal(code, 0, server.stderr());
    });
  });

  describe(`the server process refusing bad configuration [${dialect.name}]`, {
    skip: dialect.skip,
    concurrency: true,
  }, () => {
    let database: TestDatabase;
    let cwd: string;
    before(async () => {
      database = await createTestDatabase(dialect.name);
      cwd = mkdtempSync(path.join(tmpdir(), 'baas-server-cwd-'));
    });
    after(async () => {
      await database?.drop();
      if (cwd) rmSync(cwd, { recursive: true, force: true });
    });

    const expectRefusal = async (env: Record<string, string>, variable: string) => {
      const port = await freePort();
      const server = spawnServer(
        { LOG_LEVEL: 'info', PORT: String(port), ...databaseEnv(dialect.name, database), ...env },
        { cwd },
      );
      const timeout = setTimeout(() => server.child.kill('SIGKILL'), START_TIMEOUT_MS);
      await server.exited;
      const code = server.child.exitCode;
      clearTimeout(timeout);
      assert.notEqual(code, 0, 'the server must not start');
      assert.notEqual(code, null, 'the server had to be killed');
      assert.ok(server.stderr().includes(variable), `stderr does not name ${variable}: ${server.stderr()}`);
      assert.doesNotMatch(
        server.stderr(),
        /\n\s+at /,
        'a configuration error is a message, not a stack trace',
      );
    };

    it('exits non-zero naming SMTP_URL when NODE_ENV=production has no SMTP_URL', async () => {
      await expectRefusal(
        { NODE_ENV: 'production', DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
        'SMTP_URL',
      );
    });

    it('exits non-zero naming PORT when PORT is not a number', async () => {
      await expectRefusal({ NODE_ENV: 'development', PORT: 'abc' }, 'PORT');
    });
  });
}
