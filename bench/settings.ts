export type BenchDb = 'sqlite' | 'postgres';

export interface BenchSettings {
  /** Seconds measured per scenario and side. */
  durationSec: number;
  /** Measured periods per side, alternating raw and app (ABBA...), sharing durationSec. */
  rounds: number;
  /** Seconds of the same load, discarded, before each side's first round (1 s before later ones). */
  warmupSec: number;
  db: BenchDb;
  postgresUrl: string;
  /** Partners registered, verified and logged in before measuring; their tokens and logins rotate. */
  partners: number;
  /** Connections of every load, instead of each scenario's own default. */
  connections: number | undefined;
  /** Requests per second of a scenario's latency probe (e.g. /healthz under login load). */
  probeRate: number;
  /** Scenario names to run (BENCH_ONLY=login,business-info); all when undefined. */
  only: string[] | undefined;
  /** LOG_LEVEL of the app; info (the default) is what production runs with. */
  appLogLevel: string;
  /** Write a V8 CPU profile of the app child to .bench/profiles/. */
  cpuProfile: boolean;
  /** Extra node flags for the app child (BENCH_APP_NODE_ARGS="--perf-basic-prof --max-semi-space-size=32"). */
  appNodeArgs: string[];
  /** Keep the temporary DATA_DIR (with the app's log) after the run. */
  keepData: boolean;
  /**
   * Seconds, for the whole run, the bench may spend waiting for other processes to leave the CPU alone
   * and repeating the rounds they disturbed (0: measure regardless).
   */
  quietWaitSec: number;
}

function positiveNumber(
  env: Record<string, string | undefined>,
  name: string,
  fallback: number,
  allowZero = false,
): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (value === 0 && !allowZero)) {
    throw new Error(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} number (got ${raw})`);
  }
  return value;
}

const flag = (value: string | undefined): boolean => value === '1' || value === 'true';

export function readSettings(env: Record<string, string | undefined>): BenchSettings {
  const db = (env['BENCH_DB'] ?? 'sqlite').trim() || 'sqlite';
  if (db !== 'sqlite' && db !== 'postgres')
    throw new Error(`BENCH_DB must be sqlite or postgres (got ${db})`);
  const only = env['BENCH_ONLY']
    ?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const connections = env['BENCH_CONNECTIONS'];
  return {
    durationSec: positiveNumber(env, 'BENCH_DURATION', 10),
    warmupSec: positiveNumber(env, 'BENCH_WARMUP', 3),
    rounds: Math.max(1, Math.round(positiveNumber(env, 'BENCH_ROUNDS', 2))),
    db,
    postgresUrl: env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test',
    partners: Math.round(positiveNumber(env, 'BENCH_PARTNERS', 50)),
    connections: connections ? Math.round(positiveNumber(env, 'BENCH_CONNECTIONS', 10)) : undefined,
    probeRate: positiveNumber(env, 'BENCH_PROBE_RATE', 50),
    only: only && only.length > 0 ? only : undefined,
    appLogLevel: env['BENCH_APP_LOG_LEVEL'] ?? 'info',
    cpuProfile: flag(env['BENCH_CPU_PROF']),
    appNodeArgs: (env['BENCH_APP_NODE_ARGS'] ?? '').split(/\s+/).filter(Boolean),
    keepData: flag(env['BENCH_KEEP_DATA']),
    quietWaitSec: positiveNumber(env, 'BENCH_QUIET_WAIT', 120, true),
  };
}
