#!/usr/bin/env node
// Runs every test file under test/ with node:test (TypeScript through tsx). Extra arguments are
// passed to node --test, e.g. `npm test -- --test-name-pattern=otp` or a file list.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { VARIABLE as LIFELINE, startTime } from '../test/support/lifeline.mjs';

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const args = process.argv.slice(2);
const explicitFiles = args.filter((arg) => arg.endsWith('.ts'));
const flags = args.filter((arg) => !arg.endsWith('.ts'));
const files = explicitFiles.length > 0 ? explicitFiles : testFiles('test').sort();

// The browser tests load the built web apps: build them first (a no-op when web/dist is up to date).
const browserTests = path.resolve('test', 'browser') + path.sep;
if (files.some((file) => path.resolve(file).startsWith(browserTests))) {
  const build = spawnSync(process.execPath, ['web/scripts/build.mjs'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// A file's run is a test too, with the group's timeout: about 2.5 times the longest file of the group
// measured on a loaded two-core machine (docs/testing.md has the numbers). Browser files drive Chromium
// through whole journeys: console.test.ts took 243 s alone with the load average at 18, so 600 s. The
// longest other file, transfers-crash (SIGKILLs a server again and again on both databases), took
// 91 s alone at a load of 6 (80 s idle) and 200 s beside crash.test.ts at 15, so 500 s. node:test
// (Node 20) has no per-test default timeout to set from outside a file (--test-timeout bounds the
// file; NODE_OPTIONS refuses it), so a hang inside a file is found at the file's timeout.
const isBrowser = (file) => path.resolve(file).startsWith(browserTests);
const groups = [
  { files: files.filter((file) => !isBrowser(file)), timeout: 500_000 },
  { files: files.filter(isBrowser), timeout: 600_000 },
];

/*
 * Cleanup that does not depend on a test's after() hooks, which a killed or timed-out file never
 * runs. Every process of the run carries BAAS_LIFELINE_PIDS (the pids it descends from) and, when it
 * is Node.js, preloads test/support/lifeline.mjs, which ends it once one of them has died. Every temp
 * folder a test makes (os.tmpdir()) is inside this run's own TMPDIR, removed at the end. What a run
 * killed with SIGKILL leaves (its folder, a browser) is swept by the next one.
 */
const LIFELINE_MODULE = pathToFileURL(path.resolve('test', 'support', 'lifeline.mjs')).href;
const RUN_PREFIX = 'baas-run-';

const isAlive = (pid) => {
  try {
    process.kill(pid, 0);
    return startTime(pid) !== null;
  } catch (error) {
    return error.code === 'EPERM';
  }
};

/** The lifeline pids of every process (Linux: /proc/<pid>/environ; nothing elsewhere). */
function lifelineProcesses() {
  let entries;
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const found = [];
  for (const name of entries) {
    const pid = Number(name);
    if (pid === process.pid) continue;
    let environ;
    try {
      environ = readFileSync(`/proc/${name}/environ`, 'utf8');
    } catch {
      continue;
    }
    const line = environ.split('\0').find((entry) => entry.startsWith(`${LIFELINE}=`));
    if (!line) continue;
    const owners = line
      .slice(LIFELINE.length + 1)
      .split(',')
      .map((entry) => Number(entry.split(':')[0]));
    found.push({ pid, owners });
  }
  return found;
}

const kill = (pid) => {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
};

/** What earlier runs that died without their teardown left: processes whose run is gone, and folders. */
function sweepStaleRuns() {
  for (const { pid, owners } of lifelineProcesses()) {
    if (owners.some((owner) => !isAlive(owner))) kill(pid);
  }
  for (const name of readdirSync(tmpdir())) {
    const pid = new RegExp(`^${RUN_PREFIX}(\\d+)-`).exec(name)?.[1];
    if (pid !== undefined && Number(pid) !== process.pid && !isAlive(Number(pid))) {
      rmSync(path.join(tmpdir(), name), { recursive: true, force: true, maxRetries: 3 });
    }
  }
}

/**
 * Drops the PostgreSQL schemas this run's test apps made (t_<pid>_*, test/support/app.ts) that a killed
 * or timed-out file did not drop itself. Only this run's: other runs may share the database.
 */
async function dropRunSchemas() {
  const { default: pg } = await import('pg');
  const client = new pg.Client({
    connectionString: process.env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test',
    connectionTimeoutMillis: 3_000,
  });
  try {
    await client.connect();
    await client.query("set lock_timeout = '10s'");
    const { rows } = await client.query("select nspname from pg_namespace where nspname like $1 escape '!'", [
      `t!_${process.pid}!_%`,
    ]);
    for (const { nspname } of rows) await client.query(`drop schema if exists "${nspname}" cascade`);
  } catch {
    // No PostgreSQL here, or a schema still locked: what is left is only rows in a test database.
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Every process started under this run that is still there: outside the process group too (a
 * server that leads a group of its own, Chromium, which Playwright starts in one). */
function killRunProcesses() {
  for (const { pid, owners } of lifelineProcesses()) {
    if (owners.includes(process.pid)) kill(pid);
  }
}

sweepStaleRuns();
const runDir = mkdtempSync(path.join(tmpdir(), `${RUN_PREFIX}${process.pid}-`));
const ownLifeline = `${process.pid}:${startTime(process.pid) ?? ''}`;
const childEnv = {
  ...process.env,
  NODE_ENV: 'test',
  TMPDIR: runDir,
  BAAS_TEST_RUN: String(process.pid),
  // A run inside a test (test/platform/test-hygiene.test.ts) keeps the outer run's pids before its own.
  [LIFELINE]: process.env[LIFELINE]?.split(',').some((entry) => entry.startsWith(`${process.pid}:`))
    ? process.env[LIFELINE]
    : ownLifeline,
  NODE_OPTIONS: [process.env['NODE_OPTIONS'], `--import=${LIFELINE_MODULE}`].filter(Boolean).join(' '),
};

let interrupted = false;

/**
 * One `node --test` run in a process group of its own. A file that outlives its timeout is reported as
 * failed, but node:test (Node 20) leaves its process running and waits for it: one such file once
 * held a whole run, with its browser and servers, for 45 minutes. So the runner exits once every file
 * has reported (`--test-force-exit`), and whatever is left in the group then is killed. Ctrl-C and
 * SIGTERM reach the whole group too.
 */
function run(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: 'inherit', env: childEnv, detached: true });
    const killGroup = (signal) => {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // The group is gone already.
      }
    };
    const forward = (signal) => {
      interrupted = true;
      killGroup(signal);
    };
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    process.on('SIGHUP', forward);
    child.on('error', (error) => {
      console.error(`could not start node --test: ${error.message}`);
      resolve(1);
    });
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      process.off('SIGHUP', forward);
      killGroup('SIGKILL');
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

let status = 0;
try {
  for (const group of groups.filter((entry) => entry.files.length > 0)) {
    if (interrupted) break;
    const code = await run([
      '--import',
      'tsx',
      '--test',
      '--test-force-exit',
      '--test-concurrency=2',
      `--test-timeout=${group.timeout}`,
      ...flags,
      ...group.files,
    ]);
    if (code !== 0) status = code;
  }
} finally {
  killRunProcesses();
  rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
  await dropRunSchemas();
}
process.exit(interrupted && status === 0 ? 130 : status);
