import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { until } from '../support/assertions.js';
import { freePort } from '../support/smtp-sink.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The direct children of `pid`, with their command lines. */
function childrenOf(pid: number): Array<{ pid: number; command: string }> {
  let text = '';
  try {
    text = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when there is none
  }
  return text
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ pid: Number(match[1]), command: match[2] ?? '' }));
}

/** Every process below `pid`. */
const descendantsOf = (pid: number): Array<{ pid: number; command: string }> =>
  childrenOf(pid).flatMap((child) => [child, ...descendantsOf(child.pid)]);

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * `npm start` is what the README tells operators to run, and what a process manager stops with
 * SIGTERM to the npm process. npm passes the signal to its child only: the start script must exec
 * node, or a shell in between dies and leaves the server running, orphaned. The test runs the real
 * thing, prestart's TypeScript build included (about 10 s).
 */
describe('npm start', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'baas-npm-start-'));
  let npmPid: number | undefined;
  let started: number[] = [];
  after(() => {
    for (const pid of [...started, npmPid]) if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stops the server gracefully, leaving no process behind, when the npm process gets SIGTERM', async () => {
    const port = await freePort();
    const env = Object.fromEntries(
      Object.entries(process.env).filter(
        ([name]) =>
          !name.startsWith('npm_') &&
          name !== 'DATABASE_URL' &&
          name !== 'UV_THREADPOOL_SIZE' &&
          name !== 'MALLOC_ARENA_MAX',
      ),
    );
    const npm = spawn('npm', ['start'], {
      cwd: ROOT,
      env: {
        ...env,
        NODE_ENV: 'development',
        LOG_LEVEL: 'info',
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DATABASE_URL: `sqlite:${path.join(dataDir, 'baas.sqlite')}`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    npmPid = npm.pid;
    let output = '';
    npm.stdout.on('data', (chunk) => {
      output += String(chunk);
    });
    npm.stderr.on('data', (chunk) => {
      output += String(chunk);
    });
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      npm.once('exit', (code, signal) => resolve({ code, signal })),
    );
    assert.ok(npmPid);

    await until(
      'the server started by npm start to answer /readyz',
      async () => {
        if (npm.exitCode !== null) assert.fail(`npm start exited early:\n${output}`);
        return (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200;
      },
      60_000,
      100,
    );
    const tree = descendantsOf(npmPid);
    started = tree.map((process) => process.pid);
    const server = tree.find((process) => /^node\b.*dist\/server\.js/.test(process.command));
    assert.ok(server, `no server process under npm: ${JSON.stringify(tree)}`);
    // libuv's thread pool (argon2id's hashes) sized to the cores, not libuv's default of 4.
    const serverEnv = readFileSync(`/proc/${server.pid}/environ`, 'utf8').split('\0');
    assert.ok(
      serverEnv.includes(`UV_THREADPOOL_SIZE=${availableParallelism()}`),
      `UV_THREADPOOL_SIZE of the server: ${serverEnv.filter((entry) => entry.startsWith('UV_'))}`,
    );
    // glibc's malloc arenas capped at two (peak RSS under logins about 4 MiB lower).
    assert.ok(
      serverEnv.includes('MALLOC_ARENA_MAX=2'),
      `MALLOC_ARENA_MAX of the server: ${serverEnv.filter((entry) => entry.startsWith('MALLOC_'))}`,
    );

    npm.kill('SIGTERM');
    const { code, signal } = await exited;
    const left = () => tree.filter((process) => alive(process.pid));
    await until('every process npm started to end', () => left().length === 0, 10_000, 50).catch(() =>
      assert.fail(`still running after npm ended: ${JSON.stringify(left())}`),
    );
    assert.equal(code, 0, `npm start exit (signal ${signal}):\n${output}`);
    assert.match(output, /shutting down/, output);
    assert.match(output, /"msg":"shutdown complete"/, 'the server drained and closed before exiting');
    const refused = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      () => false,
      () => true,
    );
    assert.ok(refused, 'something still answers on the port');
  });
});
