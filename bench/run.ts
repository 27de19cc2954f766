import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { ConfigSchema } from '../src/config.js';
import { openDatabase } from '../src/platform/db/database.js';
import { REPO_ROOT, type ServerChild, startServerChild } from './children.js';
import { type CpuUse, QuietGate, watchCpu } from './cpu.js';
import { Recorder, runLoad, runProbe, sample } from './load.js';
import { compareSamples } from './parity.js';
import { parityVerdict, renderTable, type ScenarioReport } from './report.js';
import type { LoadSpec, ProbeSpec, Scenario, ScenarioContext, SideResult } from './scenario.js';

import { SCENARIOS } from './scenarios.js';
import { readFixture, seedPartners } from './seed.js';
import { type BenchSettings, readSettings } from './settings.js';

// `npm run bench`: the app and a raw node:http server doing the same work from memory, each in its own
// process, loaded one after the other by autocannon from this process. See bench/README.md.

type Side = 'app' | 'raw';

const ENCRYPTION_KEY = Buffer.alloc(32, 0x5a).toString('base64');
const ADMIN_API_KEY = 'bench-admin-key-0123456789abcdefghijklmnop';

const say = (line: string) => process.stdout.write(`${line}\n`);

function appEnv(settings: BenchSettings, dataDir: string, databaseUrl: string, pgSchema?: string) {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // Nothing of the caller's configuration (SMTP_URL, REDIS_URL, ...) leaks into the measured app.
  for (const key of Object.keys(ConfigSchema.properties)) delete env[key];
  return {
    ...env,
    NODE_ENV: 'development',
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    DATA_ENCRYPTION_KEY: ENCRYPTION_KEY,
    ADMIN_API_KEY,
    RATE_LIMIT_IP_PER_MINUTE: '0',
    LOG_LEVEL: settings.appLogLevel,
    ...(pgSchema ? { BENCH_PG_SCHEMA: pgSchema } : {}),
  };
}

async function pgQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** What one side collected: over one round, or merged over the rounds of a scenario. */
interface SideRecorders {
  load: Recorder;
  probe: Recorder;
  cpu: Array<{ use: CpuUse; sec: number }>;
}

const newSide = (): SideRecorders => ({ load: new Recorder(), probe: new Recorder(), cpu: [] });

function absorb(into: SideRecorders, round: SideRecorders): void {
  into.load.absorb(round.load);
  into.probe.absorb(round.probe);
  into.cpu.push(...round.cpu);
}

/** The load, and the probe started once the load is up and stopped before it ends. */
async function runRound(
  server: ServerChild,
  load: LoadSpec,
  probe: ProbeSpec | undefined,
  durationSec: number,
  settings: BenchSettings,
): Promise<SideRecorders> {
  const round = newSide();
  const cpu = watchCpu(server.pid, settings.db === 'postgres');
  const started = performance.now();
  const margin = Math.min(1, durationSec / 10);
  await Promise.all([
    runLoad(server.url, load, durationSec, round.load),
    probe && sleep(margin * 500).then(() => runProbe(server.url, probe, durationSec - margin, round.probe)),
  ]);
  const used = cpu();
  if (used) round.cpu.push({ use: used, sec: (performance.now() - started) / 1000 });
  return round;
}

const weightedCpu = (entries: Array<{ use: CpuUse; sec: number }>): CpuUse | undefined => {
  const seconds = entries.reduce((sum, entry) => sum + entry.sec, 0);
  if (seconds === 0) return undefined;
  const mean = (pick: (use: CpuUse) => number) =>
    entries.reduce((sum, entry) => sum + pick(entry.use) * entry.sec, 0) / seconds;
  return {
    server: mean((use) => use.server),
    serverLoop: mean((use) => use.serverLoop),
    database: mean((use) => use.database),
    bench: mean((use) => use.bench),
    other: mean((use) => use.other),
  };
};

function sideResult(side: SideRecorders, load: LoadSpec, probe: ProbeSpec | undefined): SideResult {
  const cpu = weightedCpu(side.cpu);
  return {
    load: side.load.summarise(load.label),
    ...(probe ? { probe: side.probe.summarise(probe.label) } : {}),
    ...(cpu ? { cpu } : {}),
  };
}

/**
 * Rounds alternate raw, app, app, raw, ... so a change in the machine's background load during the
 * scenario weighs on both sides alike; a round other processes disturbed is taken again while the
 * gate's patience lasts.
 */
async function runScenario(
  scenario: Scenario,
  ctx: ScenarioContext,
  servers: Record<Side, ServerChild>,
  settings: BenchSettings,
  gate: QuietGate,
): Promise<ScenarioReport> {
  const { request, mask = (body: unknown) => body } = scenario.parity(ctx);
  const parity = compareSamples(
    await sample(servers.app.url, request),
    await sample(servers.raw.url, request),
    mask,
  );
  const load = scenario.load(ctx);
  const probe = scenario.probe?.(ctx);
  const sides: Record<Side, SideRecorders> = { app: newSide(), raw: newSide() };
  const warmedUp = new Set<Side>();
  const roundSec = settings.durationSec / settings.rounds;
  for (let round = 0; round < settings.rounds; round++) {
    const order: Side[] = round % 2 === 0 ? ['raw', 'app'] : ['app', 'raw'];
    for (const name of order) {
      for (;;) {
        await gate.waitForQuiet();
        const warmupSec = warmedUp.has(name) ? Math.min(1, settings.warmupSec) : settings.warmupSec;
        say(
          `  round ${round + 1}/${settings.rounds} ${name}: ${warmupSec} s warm-up, ${roundSec} s measured`,
        );
        await runRound(servers[name], load, probe, warmupSec, settings);
        warmedUp.add(name);
        const measured = await runRound(servers[name], load, probe, roundSec, settings);
        if (gate.retry(weightedCpu(measured.cpu), warmupSec + roundSec)) continue;
        absorb(sides[name], measured);
        break;
      }
    }
  }
  const outcome = {
    app: sideResult(sides.app, load, probe),
    raw: sideResult(sides.raw, load, probe),
    parity,
  };
  return {
    name: scenario.name,
    title: scenario.title,
    outcome,
    verdicts: [...scenario.targets.map((target) => target.evaluate(outcome)), parityVerdict(parity)],
  };
}

async function main(): Promise<number> {
  const settings = readSettings(process.env);
  const unknown = settings.only?.filter((name) => !SCENARIOS.some((scenario) => scenario.name === name));
  if (unknown && unknown.length > 0) {
    throw new Error(
      `BENCH_ONLY: unknown scenario ${unknown.join(', ')} (${SCENARIOS.map((s) => s.name).join(', ')})`,
    );
  }
  const scenarios = SCENARIOS.filter((scenario) => !settings.only || settings.only.includes(scenario.name));
  const runId = randomBytes(4).toString('hex');
  const benchDir = path.join(REPO_ROOT, '.bench');
  mkdirSync(benchDir, { recursive: true });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'baas-bench-'));
  const pgSchema = settings.db === 'postgres' ? `bench_${runId}` : undefined;
  const databaseUrl = pgSchema ? settings.postgresUrl : `sqlite:${path.join(dataDir, 'baas.sqlite')}`;
  const startedAt = new Date();
  say(
    `bench ${runId}: ${settings.db}, ${settings.durationSec} s measured per side in ${settings.rounds} rounds, ` +
      `${settings.warmupSec} s warm-up, node ${process.version}, ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model ?? '?'})`,
  );

  const children: ServerChild[] = [];
  const reports: ScenarioReport[] = [];
  try {
    if (pgSchema) await pgQuery(settings.postgresUrl, `create schema ${pgSchema}`);
    const profileDir = path.join(benchDir, 'profiles');
    const app = await startServerChild({
      name: 'app',
      script: 'app-server.ts',
      env: appEnv(settings, dataDir, databaseUrl, pgSchema),
      logFile: path.join(dataDir, 'app.log'),
      nodeArgs: [
        ...settings.appNodeArgs,
        ...(settings.cpuProfile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      ],
    });
    children.push(app);
    say(`app pid ${app.pid} at ${app.url}; seeding ${settings.partners} partners over HTTP`);
    const partners = await seedPartners(app.url, path.join(dataDir, 'outbox'), settings.partners, runId);

    // Scenario setups, then the rows the raw server will hold, read from the app's own database.
    const fixtureFile = path.join(dataDir, 'fixture.json');
    const handle = openDatabase(databaseUrl, pgSchema ? { pgSchema, poolSize: 2 } : {});
    const scenarioData: Record<string, unknown> = {};
    try {
      for (const scenario of scenarios) {
        if (!scenario.setup) continue;
        scenarioData[scenario.name] = await scenario.setup({
          appUrl: app.url,
          adminApiKey: ADMIN_API_KEY,
          partners,
          db: handle.db,
          settings,
        });
      }
      writeFileSync(fixtureFile, JSON.stringify(await readFixture(handle.db, scenarioData)));
    } finally {
      await handle.close();
    }
    const raw = await startServerChild({
      name: 'raw',
      script: 'raw-server.ts',
      env: { ...process.env, BENCH_FIXTURE: fixtureFile },
      logFile: path.join(dataDir, 'raw.log'),
    });
    children.push(raw);
    say(`raw pid ${raw.pid} at ${raw.url}`);

    const gate = new QuietGate([process.pid, app.pid, raw.pid], settings.quietWaitSec, say);
    for (const scenario of scenarios) {
      say(`${scenario.name}: ${scenario.title}`);
      const ctx: ScenarioContext = { partners, settings, data: scenarioData[scenario.name] };
      reports.push(await runScenario(scenario, ctx, { app, raw }, settings, gate));
    }
  } finally {
    for (const child of children.reverse()) await child.stop();
    if (pgSchema) await pgQuery(settings.postgresUrl, `drop schema if exists ${pgSchema} cascade`);
    if (settings.keepData) say(`data kept in ${dataDir}`);
    else rmSync(dataDir, { recursive: true, force: true });
  }

  const verdicts = reports.flatMap((report) => report.verdicts);
  const pass = verdicts.every((verdict) => verdict.pass);
  say('');
  say(renderTable(reports));
  say('');
  say(
    `${verdicts.filter((verdict) => verdict.pass).length}/${verdicts.length} checks passed: ${pass ? 'PASS' : 'FAIL'}`,
  );
  const resultFile = path.join(benchDir, 'last.json');
  writeFileSync(
    resultFile,
    `${JSON.stringify(
      {
        runId,
        startedAt: startedAt.toISOString(),
        finishedAt: new Date().toISOString(),
        pass,
        settings,
        machine: {
          node: process.version,
          platform: `${os.platform()} ${os.release()}`,
          cpus: os.availableParallelism(),
          cpuModel: os.cpus()[0]?.model,
        },
        scenarios: reports,
      },
      null,
      2,
    )}\n`,
  );
  say(`results written to ${path.relative(process.cwd(), resultFile)}`);
  if (settings.cpuProfile)
    say(`app CPU profile in ${path.relative(process.cwd(), path.join(benchDir, 'profiles'))}/`);
  return pass ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(2);
  },
);
