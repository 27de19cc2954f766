import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  runEnv,
  type ServerProcess,
  spawnServer,
  stopServer,
  waitUntilReady,
} from '../support/server-process.js';
import { freePort } from '../support/smtp-sink.js';

const README = new URL('../../README.md', import.meta.url);

/** The README's walkthrough: the shell block between its markers, exactly as a partner pastes it. */
function walkthrough(): string {
  const text = readFileSync(README, 'utf8');
  const block = /<!-- walkthrough:start -->\s*```sh\n([\s\S]*?)```\s*<!-- walkthrough:end -->/.exec(text);
  assert.ok(block, 'README.md has a walkthrough block between its markers');
  return block[1]!;
}

/** The server command the README gives before the walkthrough, and the operator key in it. */
function readmeAdminKey(): string {
  const key = /^ADMIN_API_KEY=(\S+) npm start$/m.exec(readFileSync(README, 'utf8'))?.[1];
  assert.ok(key, 'README.md shows how to start the server with an ADMIN_API_KEY');
  return key;
}

interface ShellRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `script` with bash (errexit, pipefail) from `cwd` with only `env` (plus PATH and HOME). */
async function bash(script: string, cwd: string, env: Record<string, string>): Promise<ShellRun> {
  const shell = spawn('bash', ['-euo', 'pipefail', '-c', script], {
    cwd,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: cwd, ...runEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  shell.stdout.on('data', (chunk) => {
    stdout += String(chunk);
  });
  shell.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const code = await new Promise<number | null>((resolve) => shell.once('exit', resolve));
  return { code, stdout, stderr };
}

/**
 * Issues 14 and 30: the README walkthrough is paste-and-run end to end, and again. A fresh server
 * with nothing but the README's own settings (SQLite under DATA_DIR, e-mails in the outbox, the
 * README's operator key), and the block run by bash with errexit and pipefail from an empty folder:
 * every call must succeed, through to live, twice, and leave nothing in the folder it ran from.
 */
describe('README walkthrough against a fresh server', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'baas-readme-'));
  const cwd = mkdtempSync(path.join(tmpdir(), 'baas-readme-cwd-'));
  const scratch = mkdtempSync(path.join(tmpdir(), 'baas-readme-tmp-'));
  let server: ServerProcess;
  let env: Record<string, string>;
  before(async () => {
    const port = await freePort();
    server = spawnServer({
      PORT: String(port),
      DATA_DIR: dataDir,
      ADMIN_API_KEY: readmeAdminKey(),
      LOG_LEVEL: 'warn',
    });
    await waitUntilReady(server);
    // What the prose says the block reads: the server's PORT (or BAAS_URL) and DATA_DIR.
    env = { PORT: String(port), DATA_DIR: dataDir, TMPDIR: scratch };
  });
  after(async () => {
    await stopServer(server, 'SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  });

  /** Runs the whole block and checks each step's line; returns what it printed. */
  async function runWalkthrough(): Promise<string> {
    const run = await bash(walkthrough(), cwd, env);
    const output = `${run.stdout}${run.stderr}`;
    assert.equal(run.code, 0, `the walkthrough failed:\n${output}\n--- server ---\n${server.output()}`);
    assert.equal(run.stderr, '', 'nothing on stderr');
    const lines = run.stdout.trim().split('\n');
    assert.match(lines[0]!, /^Account created/, output);
    assert.match(output, /^Account verified/m);
    assert.match(output, /^balance: NGN 1500\.5$/m);
    assert.match(output, /virtual_account\.credited, virtual_account\.created/);
    assert.match(output, /^BVN verified/m);
    assert.match(output, /^uploaded memart$/m);
    assert.match(output, /^under_review$/m);
    assert.equal(output.match(/^approved /gm)?.length, 3, 'the ID, the CAC certificate and the MEMART');
    assert.match(output, /^active$/m);
    assert.match(output, /^live$/m);
    assert.match(lines.at(-1)!, /^live account \d{10} at bank \d{6}$/, output);
    return run.stdout;
  }

  it('registers, verifies with the e-mailed code, builds in sandbox, onboards, is approved and issues a live account', async () => {
    await runWalkthrough();
    assert.deepEqual(readdirSync(cwd), [], 'nothing left in the folder it ran from');
    assert.equal(readdirSync(scratch).length, 1, 'the sample PDF went to a folder of its own under TMPDIR');
  });

  it('runs a second time against the same server, as a new partner, through to live', async () => {
    await runWalkthrough();
    assert.deepEqual(readdirSync(cwd), []);
  });

  it("stops at a refused call with the API's error_code, message and field errors, not a stack trace", async () => {
    // The block's helpers, then a registration with the block's own partner data but a short password.
    const helpers = walkthrough().split('\n# 1.')[0]!;
    const run = await bash(
      `${helpers}\napi $B/client/onboarding/register -H "$JSON" -d '{"business_name":"Acme","email":"'$EMAIL'","password":"short","password_confirmation":"short","phone":"+2348031234567"}' | j r.message\necho unreachable`,
      cwd,
      env,
    );
    assert.notEqual(run.code, 0);
    assert.doesNotMatch(run.stdout, /unreachable/);
    assert.match(run.stderr, /^VALIDATION_FAILED .+ \{ password: \[/m, run.stderr);
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
  });

  it('says "no JSON answer" when nothing answers at BAAS_URL', async () => {
    const helpers = walkthrough().split('\n# 1.')[0]!;
    const run = await bash(`${helpers}\napi $B/client/onboarding/login | j r.data.token`, cwd, {
      ...env,
      BAAS_URL: `http://127.0.0.1:${await freePort()}`,
    });
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /^curl: \(7\)/m, 'curl says it could not connect');
    assert.match(run.stderr, /^no JSON answer/m);
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
  });
});
