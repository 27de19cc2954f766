import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { adminHeaders } from '../support/admin.js';
import { createTestDatabase, DIALECTS, startApp, type TestDatabase } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { uniqueEmail } from '../support/factories.js';
import { listAll } from '../support/http.js';
import { serverEnv } from '../support/server-process.js';
import {
  accept,
  auditEvents,
  consolePost,
  INVITATIONS,
  linkToken,
  lookupInvitation,
  newOperator,
  operatorsList,
  PUBLIC_URL,
  STRONG,
  sessionFrom,
  startEnrolment,
} from './operator-kit.js';

// The command line: `npm run operator -- invite --email <e> --role admin`.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(ROOT, 'src', 'operator.ts');
const TSX = pathToFileURL(path.join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs src/operator.ts as `npm run operator` does (with tsx), on the test database, from its DATA_DIR. */
function runCli(database: TestDatabase, args: string[]): Promise<CliRun> {
  const env = serverEnv(database, { PUBLIC_URL, LOG_LEVEL: 'silent' });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, CLI, ...args], {
      cwd: database.dataDir,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: database.dataDir, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += String(chunk);
    });
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const LINK = new RegExp(`^${PUBLIC_URL.replace(/\./g, '\\.')}/console/setup#token=[A-Za-z0-9_-]{43}$`, 'm');
const USAGE = /usage: npm run operator -- invite --email <e-mail> --role <reviewer\|admin>/;

for (const dialect of DIALECTS) {
  describe(`operator command line [${dialect.name}]`, { skip: dialect.skip }, () => {
    let database: TestDatabase;
    let started: Awaited<ReturnType<typeof startApp>>;
    before(async () => {
      database = await createTestDatabase(dialect.name);
      started = await startApp(database);
    });
    after(async () => {
      await started?.stop();
      await database?.drop();
    });

    it('invite --email --role admin prints a one-time link <PUBLIC_URL>/console/setup#token=… for the address', async () => {
      const t = started;
      const email = uniqueEmail('first-admin');
      const run = await runCli(database, ['invite', '--email', email.toUpperCase(), '--role', 'admin']);
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      const link = LINK.exec(run.stdout)?.[0];
      assert.ok(link, `a link on a line of its own:\n${run.stdout}`);
      assert.match(run.stdout, new RegExp(email.replace(/\./g, '\\.')), 'names the invited address');
      assert.match(run.stdout, /admin/);

      const token = linkToken(link);
      const opened = await lookupInvitation(t, token);
      assert.equal(opened.status, 200, opened.text);
      assert.equal(opened.body.data.email, email, 'lower-cased');
      assert.equal(opened.body.data.role, 'admin');
      assert.equal(opened.body.data.purpose, 'invite');
      const audited = await auditEvents(t, { action: 'operator.invited' });
      assert.equal(audited.filter((event) => event.metadata?.['email'] === email).length, 1);
      assert.deepEqual(audited.find((event) => event.metadata?.['email'] === email)?.actor, {
        type: 'system',
        id: 'cli',
        name: null,
        email: null,
      });

      // The link sets up the first admin, who can then manage operators from the console.
      const password = STRONG;
      const secret = await startEnrolment(t, token, {
        name: 'First Admin',
        password,
        password_confirmation: password,
      });
      const accepted = await accept(t, token, secret);
      assert.equal(accepted.status, 201, accepted.text);
      assert.equal(accepted.body.data.operator.role, 'admin');
      const session = sessionFrom(t, accepted);
      const invited = await consolePost(t, session, INVITATIONS, {
        email: uniqueEmail('second'),
        role: 'reviewer',
      });
      assert.equal(invited.status, 201, invited.text);
      assertError(await lookupInvitation(t, token), 404, 'NOT_FOUND', { what: 'the link is used up' });
    });

    it('exits 2 with the usage on bad arguments, inviting nobody', async () => {
      const t = started;
      const email = uniqueEmail('bad-args');
      const cases = [
        [],
        ['invite'],
        ['invite', '--email', email],
        ['invite', '--role', 'admin'],
        ['invite', '--email', 'not-an-address', '--role', 'admin'],
        ['invite', '--email', email, '--role', 'owner'],
        ['invite', '--email', email, '--role', 'Admin'],
        ['create', '--email', email, '--role', 'admin'],
        ['invite', '--email', email, '--role', 'admin', '--force'],
        ['invite', '--role', 'admin', '--email'],
      ];
      const runs = await Promise.all(cases.map((args) => runCli(database, args)));
      for (const [index, run] of runs.entries()) {
        const what = `operator ${cases[index]!.join(' ')}: ${run.stdout}\n${run.stderr}`;
        assert.equal(run.code, 2, what);
        assert.match(run.stderr, USAGE, what);
        assert.doesNotMatch(run.stderr, /\n\s+at /, `no stack trace: ${what}`);
        assert.doesNotMatch(run.stdout, /console\/setup/, what);
      }
      const open = await listAll(t, INVITATIONS, adminHeaders);
      assert.ok(!open.some((item) => item.email === email), 'nobody invited');
    });

    it('exits 1 saying so when the address is an operator already; a second invite of an open one replaces it', async () => {
      const t = started;
      const operator = await newOperator(t, 'reviewer');
      const refused = await runCli(database, ['invite', '--email', operator.email, '--role', 'admin']);
      assert.equal(refused.code, 1, `${refused.stdout}\n${refused.stderr}`);
      assert.match(refused.stderr, /already an operator/);
      assert.doesNotMatch(refused.stderr, /\n\s+at /, 'no stack trace');
      assert.doesNotMatch(refused.stdout, /console\/setup/);
      const listed = (await operatorsList(t)).find((item) => item.id === operator.id);
      assert.equal(listed.role, 'reviewer', 'unchanged');

      const email = uniqueEmail('twice');
      const first = await runCli(database, ['invite', '--email', email, '--role', 'admin']);
      const second = await runCli(database, ['invite', '--email', email, '--role', 'reviewer']);
      assert.equal(first.code, 0, first.stderr);
      assert.equal(second.code, 0, second.stderr);
      const [oldLink, newLink] = [LINK.exec(first.stdout)![0], LINK.exec(second.stdout)![0]];
      assert.notEqual(oldLink, newLink);
      assertError(await lookupInvitation(t, linkToken(oldLink)), 404, 'NOT_FOUND');
      const current = await lookupInvitation(t, linkToken(newLink));
      assert.equal(current.status, 200, current.text);
      assert.equal(current.body.data.role, 'reviewer');
    });
  });
}
