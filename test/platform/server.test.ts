import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  createTestDatabase,
  DIALECTS,
  type DialectName,
  TEST_DATABASE_URL,
  type TestDatabase,
} from '../support/app.js';
import { until } from '../support/assertions.js';
import { registration } from '../support/factories.js';
import { Api } from '../support/http.js';
import { LOGIN, REGISTER, VERIFY_OTP } from '../support/paths.js';
import { freePort } from '../support/smtp-sink.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SERVER = path.join(ROOT, 'src', 'server.ts');
const TSX = pathToFileURL(path.join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const START_TIMEOUT_MS = 30_000;

interface ServerProcess {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/**
 * `node --import tsx src/server.ts`, from an empty working directory (so no .env is read) and with
 * only the given environment.
 */
function spawnServer(env: Record<string, string>, cwd: string): ServerProcess {
  const child = spawn(process.execPath, ['--import', TSX, SERVER], {
    cwd,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: cwd, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    url: `http://127.0.0.1:${env['PORT']}`,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
  };
}

/** Resolves once /healthz answers; fails if the process exits first. */
async function waitUntilServing(server: ServerProcess): Promise<void> {
  let exitCode: number | null | undefined;
  void server.exited.then((code) => {
    exitCode = code;
  });
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (exitCode !== undefined) assert.fail(`server exited with ${exitCode}: ${server.stderr()}`);
    try {
      const response = await fetch(`${server.url}/healthz`);
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) assert.fail(`server did not start: ${server.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Server environment for a dialect: SQLite by default under DATA_DIR, or a PostgreSQL schema of its own. */
function databaseEnv(dialect: DialectName, database: TestDatabase): Record<string, string> {
  if (dialect === 'sqlite') return { DATA_DIR: database.dataDir };
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${database.pgSchema}`);
  return { DATA_DIR: database.dataDir, DATABASE_URL: url.toString() };
}

/**
 * Sends the headers of a login with `Expect: 100-continue` and resolves once the server has answered
 * "100 Continue", i.e. it has accepted the request and is waiting for the body.
 */
async function startLogin(baseUrl: string, body: string) {
  const request = http.request(`${baseUrl}${LOGIN}`, {
    method: 'POST',
    agent: false,
    headers: {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      expect: '100-continue',
    },
  });
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    request.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    request.on('error', reject);
  });
  const continued = once(request, 'continue');
  request.flushHeaders();
  await continued;
  return { finish: () => request.end(body), response };
}

const connectionRefused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });

/** The outbox .eml addressed to `email`, once written. */
async function outboxMail(dataDir: string, email: string): Promise<{ file: string; text: string }> {
  const dir = path.join(dataDir, 'outbox');
  let found: { file: string; text: string } | undefined;
  await until(`an outbox e-mail to ${email}`, () => {
    if (!existsSync(dir)) return false;
    for (const name of readdirSync(dir)) {
      const text = readFileSync(path.join(dir, name), 'utf8');
      if (text.includes(email)) found = { file: path.join(dir, name), text };
    }
    return found !== undefined;
  });
  return found!;
}

const codeIn = (text: string): string => {
  const match = /verification code is (\d{6})/.exec(text);
  assert.ok(match?.[1], `no code in: ${text}`);
  return match[1];
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
        { NODE_ENV: 'development', PORT: String(await freePort()), ...databaseEnv(dialect.name, database) },
        cwd,
      );
      await waitUntilServing(server);
      api = new Api(server.url);
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
        Array.from({ length: 4 }, () => startLogin(server.url, credentials)),
      );

      server.child.kill('SIGTERM');
      const port = Number(new URL(server.url).port);
      await until('the shutdown log line', () => server.stdout().includes('shutting down'));
      let refused = false;
      for (let i = 0; i < 100 && !refused; i++) {
        refused = await connectionRefused(port);
        if (!refused) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.ok(refused, 'new connections are still accepted after SIGTERM');

      for (const request of inFlight) request.finish();
      const responses = await Promise.all(inFlight.map((request) => request.response));
      for (const response of responses) {
        assert.equal(response.status, 200, response.body);
        assert.equal(JSON.parse(response.body).data.token_type, 'Bearer');
      }
      const code = await server.exited;
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
      const server = spawnServer({ PORT: String(port), ...databaseEnv(dialect.name, database), ...env }, cwd);
      const timeout = setTimeout(() => server.child.kill('SIGKILL'), START_TIMEOUT_MS);
      const code = await server.exited;
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
