#!/usr/bin/env node
// Runs every test file under test/ with node:test (TypeScript through tsx). Extra arguments are
// passed to node --test, e.g. `npm test -- --test-name-pattern=otp` or a file list.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

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

// A file's run is a test too, with the same timeout. Browser files drive Chromium through whole
// journeys (console.test.ts: 13 of them, 10-12 s each, about 130 s beside another browser file on
// two cores), so they get 300 s. The longest other file, transfers-crash (SIGKILLs a server again and
// again on both databases), takes 80 s alone on an idle machine and went past 120 s beside another
// file in CI: every other file gets 300 s too, still well short of hiding a hang for long.
const isBrowser = (file) => path.resolve(file).startsWith(browserTests);
const groups = [
  { files: files.filter((file) => !isBrowser(file)), timeout: 300_000 },
  { files: files.filter(isBrowser), timeout: 300_000 },
];
/**
 * One `node --test` run in a process group of its own. A file that outlives its timeout is reported as
 * failed, but node:test (Node 20) leaves its process running and waits for it: one such file once
 * held a whole run, with its browser and servers, for 45 minutes. So the runner exits once every file
 * has reported (`--test-force-exit`), and whatever is left in the group then is killed. Ctrl-C and
 * SIGTERM reach the whole group too.
 */
function run(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      stdio: 'inherit',
      env: { ...process.env, NODE_ENV: 'test' },
      detached: true,
    });
    const killGroup = (signal) => {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // The group is gone already.
      }
    };
    const forward = (signal) => killGroup(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('error', (error) => {
      console.error(`could not start node --test: ${error.message}`);
      resolve(1);
    });
    child.on('exit', (code) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      killGroup('SIGKILL');
      resolve(code ?? 1);
    });
  });
}

let status = 0;
for (const group of groups.filter((entry) => entry.files.length > 0)) {
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
process.exit(status);
