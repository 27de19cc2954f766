import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { benchDatabase, compileServers, OUT, type Partner, SCENARIOS, SERVER, startOf } from './setup.js';

// `npm run bench:instructions`: the instructions each server runs per request, counted by valgrind's
// callgrind. Unlike seconds on a shared VM (the throughput bench's rounds swing by half), the count
// repeats to about 1 % run after run, so a change of a few percent shows. See bench/README.md.

const { env } = process;
const DB = env['BENCH_DB'] === 'postgres' ? 'postgres' : 'sqlite';
const WARMUP = Number(env['BENCH_WARMUP'] || 16_000);
const REQUESTS = Number(env['BENCH_REQUESTS'] || 4_000);
const SIDES = (env['BENCH_SIDES'] ?? 'app,raw').split(',') as Array<'app' | 'raw'>;
/** Login is argon2id's own work on both sides: its instruction count says nothing of the service. */
const NAMES = env['BENCH_ONLY']?.split(',') ?? ['business-info', 'virtual-account-create'];
/**
 * Timers fire by the clock while everything runs some 80 times slower under valgrind: the workers'
 * polls would be counted as if the server did them every few requests. They are put off for the run.
 */
const QUIET = { WEBHOOK_POLL_MS: '3600000', MAIL_POLL_MS: '3600000' };
/** More settings for the app, `NAME=value` separated by spaces (a setting's cost: with and without it). */
const APP_ENV = Object.fromEntries(
  (env['BENCH_APP_ENV'] ?? '')
    .split(' ')
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);

type Scenario = (typeof SCENARIOS)[number];

/** Instructions of the whole process, every thread (valgrind runs them one at a time). */
function instructions(file: string): number {
  return Number(/^totals:\s+(\d+)/m.exec(fs.readFileSync(file, 'utf8'))?.[1] ?? 0);
}

/**
 * Instructions spent compiling JavaScript (V8's Runtime_Compile* entry points, all they call): with
 * --predictable the optimizing compiler runs on the main thread, in bursts that the counted requests
 * may or may not catch (28 % of the count in one run, on both servers), so the figure without them
 * is the steadier measure of a request's own work.
 */
function compilerInstructions(file: string): number {
  const report = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  let total = 0;
  for (const match of report.matchAll(/^\s*([\d,]+) \([^)]*\)\s+\S*:v8::internal::Runtime_Compile\w*\(/gm))
    total += Number(match[1]!.replaceAll(',', ''));
  return total;
}

/** `count` requests of the scenario, two at a time over keep-alive connections (`ids` makes bodies unique). */
async function load(port: number, scenario: Scenario, partners: Partner[], count: number, ids: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
  let next = 0;
  const one = (index: number) => {
    const template = scenario.request(partners[index % partners.length]!);
    const request = template.setupRequest?.({ ...template }) ?? template;
    const body = request.body?.replace('[<id>]', `${ids}-${index}`);
    return new Promise<void>((resolve, reject) => {
      const call = http.request(
        {
          host: '127.0.0.1',
          port,
          agent,
          method: request.method ?? 'GET',
          path: request.path,
          headers: request.headers,
        },
        (response) => {
          response.resume();
          response.on('end', () =>
            (response.statusCode ?? 500) < 300
              ? resolve()
              : reject(new Error(`answered ${response.statusCode}`)),
          );
        },
      );
      call.on('error', reject);
      call.end(body);
    });
  };
  const worker = async () => {
    while (next < count) await one(next++);
  };
  await Promise.all([worker(), worker()]);
  agent.destroy();
}

/** One server under callgrind: warmed up uncounted, then `REQUESTS` requests counted. */
async function measure(
  side: 'app' | 'raw',
  scenario: Scenario,
  database: Awaited<ReturnType<typeof benchDatabase>>,
) {
  const out = path.join(OUT, 'callgrind', `${DB}-${scenario.name}-${side}.out`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  for (const file of fs.readdirSync(path.dirname(out))) {
    if (file.startsWith(path.basename(out))) fs.rmSync(path.join(path.dirname(out), file));
  }
  const log = fs.openSync(path.join(database.dataDir, `${side}-${scenario.name}.log`), 'a');
  // --predictable: no concurrent GC or compilation, so what V8 does next depends on the work alone.
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--smc-check=all-non-file',
      '--instr-atstart=no',
      `--callgrind-out-file=${out}`,
      process.execPath,
      '--predictable',
      ...(process.env['BENCH_NODE_FLAGS']?.split(' ').filter(Boolean) ?? []),
      ...startOf(side).flags,
      SERVER,
      side,
    ],
    {
      env: { ...database.env, ...startOf(side).env, ...QUIET, ...(side === 'app' ? APP_ENV : {}) },
      stdio: ['ignore', log, log, 'ipc'],
    },
  );
  fs.closeSync(log);
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`exit ${code}`))),
  );
  exited.catch(() => undefined);
  const { port } = await Promise.race([
    new Promise<{ port: number }>((resolve) => child.once('message', resolve as never)),
    exited,
  ]);
  const control = (...args: string[]) =>
    new Promise<void>((resolve) =>
      spawn('callgrind_control', [...args, String(child.pid)], { stdio: 'ignore' }).on('exit', () =>
        resolve(),
      ),
    );
  await load(port, scenario, database.partners, WARMUP, `${side}-warm`);
  await control('--zero');
  await control('--instr=on');
  await load(port, scenario, database.partners, REQUESTS, side);
  await control('--instr=off');
  await control('--dump');
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  const dumps = fs
    .readdirSync(path.dirname(out))
    .filter(
      (file) =>
        file.startsWith(path.basename(out)) && fs.statSync(path.join(path.dirname(out), file)).size > 0,
    )
    .map((file) => path.join(path.dirname(out), file));
  // The dump with the most instructions (each file read once).
  const [dump, count] = dumps
    .map((file) => [file, instructions(file)] as const)
    .reduce<readonly [string, number]>((best, next) => (next[1] > best[1] ? next : best), ['', 0]);
  if (!count) throw new Error(`no instructions counted for ${side} ${scenario.name}`);
  return { count, compiler: compilerInstructions(dump) };
}

async function main(): Promise<void> {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  const scenarios = SCENARIOS.filter((scenario) => NAMES.includes(scenario.name));
  console.log(
    `${DB}: ${WARMUP} requests warm-up, ${REQUESTS} counted, per server, under callgrind; compiling…`,
  );
  compileServers();
  const results: Array<{ scenario: string; side: string; instructions: number; withoutCompiler: number }> =
    [];
  for (const scenario of scenarios) {
    const database = await benchDatabase(DB);
    try {
      console.log(`${scenario.name}: ${SIDES.join(' and ')}, side by side`);
      const counts = await Promise.all(SIDES.map((side) => measure(side, scenario, database)));
      for (const [index, side] of SIDES.entries()) {
        const { count, compiler } = counts[index]!;
        results.push({
          scenario: scenario.name,
          side,
          instructions: count / REQUESTS,
          withoutCompiler: (count - compiler) / REQUESTS,
        });
      }
    } finally {
      await database.drop();
    }
  }
  const n = (value: number) => Math.round(value).toLocaleString('en-US');
  console.log('\n| scenario | server | instructions a request | without compiling |');
  console.log('| --- | --- | --- | --- |');
  for (const { scenario, side, instructions, withoutCompiler } of results) {
    console.log(`| ${scenario} | ${side} | ${n(instructions)} | ${n(withoutCompiler)} |`);
  }
  for (const scenario of scenarios) {
    const [app, raw] = ['app', 'raw'].map((side) =>
      results.find((result) => result.scenario === scenario.name && result.side === side),
    );
    if (app && raw)
      console.log(
        `${scenario.name}: raw ÷ app ${(raw.instructions / app.instructions).toFixed(2)}, ` +
          `without compiling ${(raw.withoutCompiler / app.withoutCompiler).toFixed(2)}`,
      );
  }
  const file = path.join(OUT, `instructions-${DB}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(
    file,
    `${JSON.stringify({ db: DB, warmup: WARMUP, requests: REQUESTS, results }, null, 2)}\n`,
  );
  console.log(`\nresults: ${path.relative(process.cwd(), file)}; callgrind files in .bench/callgrind`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(2);
  },
);
