#!/usr/bin/env node
// The long fuzzing run: every test file in test/fuzz/ (their harness is test/fuzz/harness/) with
// FUZZ_RUNS=1000 cases per property per operation (npm test runs the same files with 25). Options (or
// the matching environment variables):
//   --runs=N            FUZZ_RUNS      cases per property per operation (default 1000)
//   --dialects=a,b      FUZZ_DIALECTS  sqlite and/or postgres (default: both, postgres when reachable)
//   --op=id1,id2        FUZZ_OP        only these operationIds
//   --property=p1,p2    FUZZ_PROPERTY  only these properties (valid, invalid-body, transport, ...)
//   --seed=N --path=P   FUZZ_SEED / FUZZ_PATH  replay a reported failure
//   --report-dir=DIR    FUZZ_REPORT_DIR        also write fuzz-<dialect>.json there
// Other arguments are passed to node --test.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

const OPTIONS = {
  runs: 'FUZZ_RUNS',
  dialects: 'FUZZ_DIALECTS',
  op: 'FUZZ_OP',
  property: 'FUZZ_PROPERTY',
  seed: 'FUZZ_SEED',
  path: 'FUZZ_PATH',
  'report-dir': 'FUZZ_REPORT_DIR',
};

const env = { ...process.env, NODE_ENV: 'test' };
env.FUZZ_RUNS ??= '1000';
env.FUZZ_VERBOSE ??= '1';
const passThrough = [];
for (const arg of process.argv.slice(2)) {
  const match = /^--([a-z-]+)=(.*)$/.exec(arg);
  if (match && OPTIONS[match[1]]) env[OPTIONS[match[1]]] = match[2];
  else passThrough.push(arg);
}

const dir = path.join('test', 'fuzz');
const files = readdirSync(dir)
  .filter((name) => name.endsWith('.test.ts'))
  .sort()
  .map((name) => path.join(dir, name));

console.log(
  `fuzz: ${files.join(', ')} with FUZZ_RUNS=${env.FUZZ_RUNS}` +
    `${env.FUZZ_DIALECTS ? ` FUZZ_DIALECTS=${env.FUZZ_DIALECTS}` : ''}` +
    `${env.FUZZ_REPORT_DIR ? `; JSON reports in ${env.FUZZ_REPORT_DIR}/` : ''}`,
);
const started = Date.now();
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=1',
    // A property of 1000 cases against argon2-hashing endpoints takes minutes, not seconds.
    '--test-timeout=7200000',
    ...passThrough,
    ...files,
  ],
  { stdio: 'inherit', env },
);
console.log(`fuzz: finished in ${((Date.now() - started) / 1000).toFixed(0)} s, exit ${result.status}`);
process.exit(result.status ?? 1);
