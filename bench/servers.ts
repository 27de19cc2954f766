import { fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { type Partner, type SCENARIOS, SERVER, startOf } from './setup.js';

// What the throughput benches share: a server in its own process and a measured load on it.

/**
 * Seconds of load each server gets before anything is measured (BENCH_WARMUP_SECONDS). V8 goes on optimizing
 * the app's request path for its first 15–25 s under load (about 800 functions optimized in the first
 * 8 s, 120–200 in the next 8, a handful after 25 s, `--trace-opt`); the app's CPU a request falls from
 * about 300 µs to its steady 150–190 µs meanwhile, the twin's (less code) from about 137 to 95–125 µs.
 * A shorter warm-up weighs that transient on the app's first rounds.
 */
export const WARMUP_SECONDS = Number(process.env['BENCH_WARMUP_SECONDS'] || 20);

export type Scenario = (typeof SCENARIOS)[number];

/** What a variant adds to how its side is started (`npm run bench:ab`), and a CPU profile's folder. */
export interface StartOptions {
  flags?: readonly string[];
  env?: Readonly<Record<string, string>>;
  cpuProfDir?: string | undefined;
  /** The log file's name in the database's folder (the side's name by default). */
  logName?: string;
}

/**
 * A server in its own process (plain node, compiled like production), reporting its port over IPC.
 * The app runs with the node flags and environment of `npm start`, then the variant's own.
 */
export async function startServer(
  side: 'app' | 'raw',
  childEnv: NodeJS.ProcessEnv,
  options: StartOptions = {},
) {
  const log = fs.openSync(path.join(childEnv['DATA_DIR']!, `${options.logName ?? side}.log`), 'a');
  const start = startOf(side);
  const child = fork(SERVER, [side], {
    env: { ...childEnv, ...start.env, ...options.env },
    execArgv: [
      ...start.flags,
      ...(options.flags ?? []),
      ...(options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`] : []),
    ],
    stdio: ['ignore', log, 'inherit', 'ipc'],
  });
  fs.closeSync(log);
  let stopping = false;
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => stopping || reject(new Error(`the ${side} server exited (code ${code})`))),
  );
  exited.catch(() => undefined);
  const reply = <T>() => Promise.race([new Promise<T>((resolve) => child.once('message', resolve)), exited]);
  const { port } = await reply<{ port: number }>();
  return {
    url: `http://127.0.0.1:${port}`,
    stats: () => {
      const answer = reply<{ cpuUs: number; maxRssKiB: number }>();
      child.send('stats');
      return answer;
    },
    stop: () => {
      stopping = true;
      child.send('stop');
      return new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
export type Server = Awaited<ReturnType<typeof startServer>>;

/** autocannon for `seconds`; latencies (ms, sub-millisecond) of the 2xx answers and the failures. */
export function load(url: string, scenario: Scenario, partners: Partner[], seconds: number) {
  const latencies: number[] = [];
  const requests = partners.map(scenario.request);
  const options = { url, connections: scenario.connections, pipelining: 1, duration: seconds, timeout: 10 };
  return new Promise<{ latencies: number[]; seconds: number; failures: number }>((resolve, reject) => {
    autocannon({ ...options, requests, idReplacement: true }, (error, result) =>
      error
        ? reject(error)
        : resolve({ latencies, seconds: result.duration, failures: result.errors + result.non2xx }),
    ).on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status < 300) latencies.push(ms);
    });
  });
}

export type Phase = Awaited<ReturnType<typeof load>> & { cpuUs: number; maxRssKiB: number };

/** One measured phase: the server's CPU time (all threads) and peak RSS over exactly this load. */
export async function phase(
  server: Server,
  scenario: Scenario,
  partners: Partner[],
  seconds: number,
): Promise<Phase> {
  const before = await server.stats();
  const run = await load(server.url, scenario, partners, seconds);
  const after = await server.stats();
  return { ...run, cpuUs: after.cpuUs - before.cpuUs, maxRssKiB: after.maxRssKiB };
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return Number.isInteger(middle) ? (sorted[middle - 1]! + sorted[middle]!) / 2 : sorted[Math.floor(middle)]!;
};
