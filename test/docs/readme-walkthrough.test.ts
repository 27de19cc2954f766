import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ServerProcess, spawnServer, stopServer, waitUntilReady } from '../support/server-process.js';
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

/**
 * Issue 14: the README walkthrough is paste-and-run end to end. A fresh server with nothing but the
 * README's own settings (SQLite under DATA_DIR, e-mails in the outbox, the README's operator key), and
 * the block run by bash with errexit and pipefail: every curl -f must succeed, through to live.
 */
describe('README walkthrough against a fresh server', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'baas-readme-'));
  let server: ServerProcess;
  before(async () => {
    const port = await freePort();
    server = spawnServer({
      PORT: String(port),
      DATA_DIR: dataDir,
      ADMIN_API_KEY: readmeAdminKey(),
      LOG_LEVEL: 'warn',
    });
    await waitUntilReady(server);
  });
  after(async () => {
    await stopServer(server, 'SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('registers, verifies with the e-mailed code, builds in sandbox, onboards, is approved and issues a live account', async () => {
    const shell = spawn('bash', ['-euo', 'pipefail', '-c', walkthrough()], {
      cwd: dataDir,
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        HOME: dataDir,
        BAAS_URL: server.url,
        DATA_DIR: dataDir,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    shell.stdout.on('data', (chunk) => {
      output += String(chunk);
    });
    shell.stderr.on('data', (chunk) => {
      output += String(chunk);
    });
    const code = await new Promise<number | null>((resolve) => shell.once('exit', resolve));
    assert.equal(code, 0, `the walkthrough failed:\n${output}\n--- server ---\n${server.output()}`);
    const lines = output.trim().split('\n');
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
  });
});
