#!/usr/bin/env node
// Runs every test file under test/ with node:test (TypeScript through tsx). Extra arguments are
// passed to node --test, e.g. `npm test -- --test-name-pattern=otp` or a file list.
import { spawnSync } from 'node:child_process';
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

const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=120000', ...flags, ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(result.status ?? 1);
