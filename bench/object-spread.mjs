#!/usr/bin/env node
// What an object literal that starts with a spread costs on this Node, next to the other ways of
// writing the same object (test/unit/object-literals.test.ts and src/platform/objects.ts act on it):
//
//   node bench/object-spread.mjs               every shape, each in a fresh process
//   node bench/object-spread.mjs --fields=25   a larger base (default 10 members, then one more)
//   (--rounds=21 --n=300000 --warmup-ms=3000 are the defaults)
//
// Plain JavaScript run by node itself: no transpiler touches the literals (the server runs tsc's
// ES2022 output, which keeps them as written). Each shape runs in its own process so that one's
// feedback and garbage do not weigh on another: a warm-up (time-based, so the optimizing compiler has
// run), then rounds of n objects, each kept alive in a ring of 4096 (so escape analysis cannot drop
// the allocation, and some survive a scavenge as objects made per request do). It prints the CPU time
// per object, the median of the rounds and their range: the process's CPU time, all threads, so the
// garbage collector's helpers count, and other processes on shared cores weigh less than on a
// wall clock. And whether two objects made by the same line share a hidden class (V8's %HaveSameMap):
// `no` is the slow path, a map made for every object.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SHAPES = {
  // The pattern the rule bans: a spread, then more members.
  'spread-then-field': (base, i) => ({ ...base, added: i }),
  // Two spreads (`{ ...base, ...fields }`), which extend() replaces too.
  'spread-then-spread': (base, i, fields) => ({ ...base, ...fields[i & 1] }),
  // What the rule asks for instead: extend(base, { added: i }).
  'extend (Object.assign)': (base, i) => Object.assign({}, base, { added: i }),
  // A spread alone: V8's clone fast path.
  'spread only': (base) => ({ ...base }),
  // The clone, then the member added by assignment.
  'spread, then assign': (base, i) => {
    const object = { ...base };
    object.added = i;
    return object;
  },
  // A member, then the spread.
  'field-then-spread': (base, i) => ({ added: i, ...base }),
};

const options = Object.fromEntries(
  process.argv
    .slice(2)
    .map((arg) => /^--([a-z-]+)=(.*)$/.exec(arg))
    .filter(Boolean)
    .map((match) => [match[1], match[2]]),
);
const ROUNDS = Number(options.rounds ?? 21);
const N = Number(options.n ?? 300_000);
const WARMUP_MS = Number(options['warmup-ms'] ?? 3000);
const FIELDS = Number(options.fields ?? 10);

/**
 * Records as the app's code builds them (a literal: fast properties, one hidden class for all):
 * strings, numbers, a null, a nested object.
 */
function makeBases(count) {
  const value = (f) => [`i + ${f}`, `'value ' + i + ' ${f}'`, 'null', `{ n: ${f} }`][f % 4];
  const members = Array.from({ length: FIELDS }, (_, f) => `field_${f}: ${value(f)}`);
  const record = new Function('i', `return { ${members.join(', ')} };`);
  return Array.from({ length: count }, (_, i) => record(i));
}

/** The same object written out as a plain literal, made for FIELDS (the baseline the rule cites). */
function plainLiteral() {
  const members = Array.from({ length: FIELDS }, (_, f) => `field_${f}: base.field_${f}`);
  return new Function('base', 'i', `return { ${members.join(', ')}, added: i };`);
}

function run(name) {
  const make = name === 'plain literal' ? plainLiteral() : SHAPES[name];
  const bases = makeBases(1024);
  const fields = [{ added: 1 }, { added: 2 }];
  const ring = new Array(4096);
  let sink = 0;
  const batch = (count, offset) => {
    for (let i = 0; i < count; i++) {
      const object = make(bases[i & 1023], i + offset, fields);
      ring[i & 4095] = object;
      sink += object.added === undefined ? 0 : 1;
    }
  };
  const warmupEnd = performance.now() + WARMUP_MS;
  while (performance.now() < warmupEnd) batch(10_000, 0);

  const perObject = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.cpuUsage();
    batch(N, round);
    const used = process.cpuUsage(started);
    perObject.push(((used.user + used.system) * 1000) / N);
  }

  let sameMap = 'n/a (run with --allow-natives-syntax)';
  if (process.execArgv.includes('--allow-natives-syntax')) {
    const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)');
    const a = make(bases[1], 1, fields);
    const b = make(bases[2], 2, fields);
    sameMap = haveSameMap(a, b) ? 'yes' : 'no';
  }
  perObject.sort((x, y) => x - y);
  return {
    name,
    median: perObject[Math.floor(perObject.length / 2)],
    min: perObject[0],
    max: perObject.at(-1),
    sameMap,
    sink,
  };
}

if (options.shape) {
  process.stdout.write(JSON.stringify(run(options.shape)));
} else {
  const names = ['plain literal', ...Object.keys(SHAPES)];
  console.log(
    `node ${process.version} (V8 ${process.versions.v8}), ${FIELDS} fields + 1, ` +
      `warm-up ${WARMUP_MS} ms, ${ROUNDS} rounds of ${N} objects, a fresh process per shape`,
  );
  console.log('| shape | CPU ns/object (median) | range | two objects share a map |');
  console.log('|---|---:|---:|---|');
  for (const name of names) {
    const child = spawnSync(
      process.execPath,
      ['--allow-natives-syntax', fileURLToPath(import.meta.url), `--shape=${name}`, ...process.argv.slice(2)],
      { encoding: 'utf8' },
    );
    if (child.status !== 0) {
      console.error(child.stderr);
      process.exit(1);
    }
    const result = JSON.parse(child.stdout);
    console.log(
      `| ${name} | ${result.median.toFixed(1)} | ${result.min.toFixed(1)}–${result.max.toFixed(1)} | ${result.sameMap} |`,
    );
  }
}
