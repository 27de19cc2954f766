import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Request } from 'autocannon';
import { argon2Verify } from './raw.js';
import { load, median, type Phase, phase, type Scenario, startServer, WARMUP_SECONDS } from './servers.js';
import { benchDatabase, compileServers, OUT, type Partner, SCENARIOS } from './setup.js';

// `npm run bench`: each scenario against the app (buildApp, compiled, in its own process) and then its
// raw twin (bench/raw.ts) on the same database, under the same autocannon load. See bench/README.md.

const { env } = process;
const DB = env['BENCH_DB'] === 'postgres' ? 'postgres' : 'sqlite';
const DURATION = Number(env['BENCH_DURATION'] || 10);
const ROUNDS = Math.max(1, Math.round(Number(env['BENCH_ROUNDS'] || 4)));
const CPU_PROF = env['BENCH_CPU_PROF'] === '1';
const RSS_LIMIT_MIB = 150;

/** The status, header names and data's keys of one answer: the two servers must answer alike. */
async function shape(url: string, template: Request, side: string): Promise<string> {
  const request = template.setupRequest?.({ ...template }) ?? template;
  const body = request.body?.replace('[<id>]', `shape-${side}`);
  const answer = await fetch(url + request.path, { ...request, ...(body ? { body } : {}) });
  const { data } = (await answer.json()) as { data?: object };
  return `${answer.status} [${[...answer.headers.keys()].sort()}] ${Object.keys(data ?? {}).sort()}`;
}

/** A server's phases summed: req/s over the measured seconds, latencies of all its 2xx answers. */
function summary(phases: Phase[], warmFailures: number, answer: string) {
  const sorted = Float64Array.from(phases.flatMap((p) => p.latencies)).sort();
  const seconds = phases.reduce((sum, p) => sum + p.seconds, 0);
  const cpuUs = phases.reduce((sum, p) => sum + p.cpuUs, 0);
  const at = (q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
  return {
    rps: sorted.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
    cpuUsPerReq: cpuUs / sorted.length,
    peakRssMiB: Math.max(...phases.map((p) => p.maxRssKiB)) / 1024,
    failures: warmFailures + phases.reduce((sum, p) => sum + p.failures, 0),
    answer,
  };
}
type Side = ReturnType<typeof summary>;

/**
 * Both servers up at once; after a warm-up each, ROUNDS rounds of DURATION / ROUNDS seconds a
 * server, in the order app, raw, raw, app, app, raw… so that a host speeding up or slowing down
 * during the run weighs on both alike. The ratio is the median of the rounds' req/s ratios.
 */
async function measure(scenario: Scenario, partners: Partner[], childEnv: NodeJS.ProcessEnv) {
  const prof = path.join(OUT, 'profiles', `${DB}-${scenario.name}`);
  const app = await startServer('app', childEnv, { cpuProfDir: CPU_PROF ? prof : undefined });
  try {
    const raw = await startServer('raw', childEnv, { cpuProfDir: CPU_PROF ? `${prof}-raw` : undefined });
    try {
      const sides = { app, raw };
      const answers = { app: '', raw: '' };
      const warm = { app: 0, raw: 0 };
      for (const side of ['app', 'raw'] as const) {
        answers[side] = await shape(sides[side].url, scenario.request(partners[0]!), side);
        warm[side] = (await load(sides[side].url, scenario, partners, WARMUP_SECONDS)).failures;
      }
      const phases: Record<'app' | 'raw', Phase[]> = { app: [], raw: [] };
      const ratios: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? (['app', 'raw'] as const) : (['raw', 'app'] as const);
        for (const side of order)
          phases[side].push(await phase(sides[side], scenario, partners, DURATION / ROUNDS));
        const rps = (side: 'app' | 'raw') =>
          phases[side][round]!.latencies.length / phases[side][round]!.seconds;
        ratios.push(rps('app') / rps('raw'));
      }
      return {
        app: summary(phases.app, warm.app, answers.app),
        raw: summary(phases.raw, warm.raw, answers.raw),
        ratio: median(ratios),
        ratios,
      };
    } finally {
      await raw.stop();
    }
  } finally {
    await app.stop();
  }
}

/** The functions with the most self time in the app's main-thread CPU profile (idle left out). */
function hottest(dir: string, top = 12): string[] {
  const files = fs.readdirSync(dir).map((name) => path.join(dir, name));
  const file = files.sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
  if (!file) return [];
  type Frame = { functionName: string; url: string; lineNumber: number };
  type Profile = { nodes: Array<{ id: number; callFrame: Frame }>; samples: number[]; timeDeltas: number[] };
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const self = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, index) => {
    const { functionName, url, lineNumber } = frames.get(id)!;
    if (functionName === '(idle)' || functionName === '(program)') return;
    const where = url.replace(/^.*\/node_modules\//, '').replace(/^.*\/\.bench\/build\//, '');
    const key = `${functionName || '(anonymous)'} ${where && `${where}:${lineNumber + 1}`}`;
    self.set(key, (self.get(key) ?? 0) + profile.timeDeltas[index]!);
    busy += profile.timeDeltas[index]!;
  });
  const entries = [...self].sort((a, b) => b[1] - a[1]).slice(0, top);
  return entries.map(([key, micros]) => `${((100 * micros) / busy).toFixed(1).padStart(5)}%  ${key}`);
}

async function main(): Promise<number> {
  const only = env['BENCH_ONLY']?.split(',');
  const scenarios = SCENARIOS.filter((s) => !only || only.includes(s.name));
  if (scenarios.length === 0) throw new Error(`BENCH_ONLY: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  const started = new Date();
  const binding = (await argon2Verify()).name;
  console.log(
    `${DB}: ${DURATION} s measured after ${WARMUP_SECONDS} s warm-up per server, node ${process.version}, ` +
      `${os.availableParallelism()} CPUs (load ${os.loadavg()[0]!.toFixed(1)}), raw login with ${binding}; compiling…`,
  );
  compileServers();
  const rows: Array<{
    scenario: Scenario;
    app: Side;
    raw: Side;
    ratio: number;
    ratios: number[];
    hottest: string[];
  }> = [];
  const database = await benchDatabase(DB);
  try {
    for (const scenario of scenarios) {
      const prof = path.join(OUT, 'profiles', `${DB}-${scenario.name}`);
      fs.rmSync(prof, { recursive: true, force: true });
      fs.rmSync(`${prof}-raw`, { recursive: true, force: true });
      console.log(`${scenario.name}: app and raw, ${ROUNDS} rounds`);
      await database.renewNameEnquiries();
      rows.push({
        scenario,
        ...(await measure(scenario, database.partners, database.env)),
        hottest: CPU_PROF ? hottest(prof) : [],
      });
    }
  } finally {
    await database.drop();
  }

  const n = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits });
  const cells = ({ rps, p50, p99, cpuUsPerReq, peakRssMiB }: Side) =>
    [n(rps), n(p50, 2), n(p99, 2), n(cpuUsPerReq), n(peakRssMiB)].join(' | ');
  const side = 'req/s | p50 ms | p99 ms | CPU µs/req | peak RSS MiB';
  const met = (ok: boolean) => (ok ? 'yes' : '**no**');
  console.log(
    `\n${DB}, ${started.toISOString().slice(0, 10)}, BENCH_DURATION=${DURATION}, BENCH_ROUNDS=${ROUNDS}\n`,
  );
  console.log(
    `| scenario | app ${side} | raw ${side} | ratio | target | met? | app RSS ≤ 150 MiB | CPU raw/app |`,
  );
  console.log(`|${' --- |'.repeat(16)}`);
  const problems: string[] = [];
  for (const { scenario: s, app, raw, ratio, ratios } of rows) {
    const spread =
      ratios.length > 1 ? ` (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})` : '';
    const cpu = raw.cpuUsPerReq / app.cpuUsPerReq;
    const verdicts = `${met(ratio >= s.target)} | ${met(app.peakRssMiB <= RSS_LIMIT_MIB)} | ${cpu.toFixed(2)}`;
    console.log(
      `| ${s.title} | ${cells(app)} | ${cells(raw)} | ${ratio.toFixed(2)}${spread} | ≥ ${s.target} | ${verdicts} |`,
    );
    if (app.failures + raw.failures > 0)
      problems.push(`${s.name}: ${app.failures} app, ${raw.failures} raw failures`);
    if (app.answer !== raw.answer) problems.push(`${s.name}: app answered ${app.answer}, raw ${raw.answer}`);
  }
  for (const { scenario, hottest } of rows.filter((row) => row.hottest.length > 0))
    console.log(`\napp self time, ${scenario.name} (% of busy main thread):\n  ${hottest.join('\n  ')}`);
  const file = path.join(OUT, `${DB}-${started.toISOString().replace(/[:.]/g, '-')}.json`);
  const results = rows.map(({ scenario: { name, target }, ...row }) => ({ name, target, ...row }));
  const machine = {
    node: process.version,
    cpus: os.availableParallelism(),
    loadAvg: os.loadavg(),
    rawArgon2: binding,
  };
  const report = {
    db: DB,
    started,
    durationSec: DURATION,
    warmupSec: WARMUP_SECONDS,
    rounds: ROUNDS,
    ...machine,
    results,
    problems,
  };
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nresults: ${path.relative(process.cwd(), file)}`);
  for (const problem of problems) console.error(`ERROR ${problem}`);
  return problems.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(2);
  },
);
