import type { Kysely } from 'kysely';
import type { Database } from '../src/platform/db/schema.js';
import type { CpuUse } from './cpu.js';
import type { RawRoute } from './raw-kit.js';
import type { BenchSettings } from './settings.js';

/** One HTTP request of a load, sent as is to the app and to the raw server. */
export interface BenchRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** A closed-loop load: `connections` clients each cycling through `requests` as fast as answers come. */
export interface LoadSpec {
  label: string;
  connections: number;
  requests: BenchRequest[];
  /** Replace `[<id>]` in bodies with a unique id per request (e.g. a new customer e-mail each time). */
  idReplacement?: boolean;
}

/** An open-loop latency probe: GET `path` at a fixed pace while the scenario's load runs. */
export interface ProbeSpec {
  label: string;
  path: string;
  ratePerSec: number;
}

export interface SeededPartner {
  companyId: number;
  email: string;
  password: string;
  /** Session token from the login made while seeding. */
  token: string;
}

export interface SetupContext {
  appUrl: string;
  /** The app's ADMIN_API_KEY, for operator steps (approving onboarding, ...). */
  adminApiKey: string;
  partners: SeededPartner[];
  /** A separate handle on the app's database. */
  db: Kysely<Database>;
  settings: BenchSettings;
}

export interface ScenarioContext {
  partners: SeededPartner[];
  settings: BenchSettings;
  /** What this scenario's setup returned (undefined without a setup). */
  data: unknown;
}

export interface Measurement {
  label: string;
  /** Completed responses per second. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  responses: number;
  /** Connection errors, timeouts, non-2xx answers. */
  errors: number;
  statusCodes: Record<string, number>;
  durationSec: number;
}

export interface SideResult {
  load: Measurement;
  probe?: Measurement;
  /** Cores used during the measurement by the server, the bench and everything else (Linux only). */
  cpu?: CpuUse;
}

export interface Parity {
  ok: boolean;
  problems: string[];
}

export interface ScenarioOutcome {
  app: SideResult;
  raw: SideResult;
  parity: Parity;
}

export interface Verdict {
  target: string;
  value: number;
  threshold: number;
  pass: boolean;
  detail: string;
}

export interface Target {
  evaluate(outcome: ScenarioOutcome): Verdict;
}

export interface Scenario {
  /** Short id, used by BENCH_ONLY and in .bench/last.json. */
  name: string;
  title: string;
  /** The raw server's routes doing this scenario's work from memory. */
  routes: RawRoute[];
  /**
   * Runs once against the app after the partners are seeded, before anything is measured. Its result
   * reaches load()/probe()/parity() as ctx.data and the raw server as state.scenarioData[name].
   */
  setup?(ctx: SetupContext): Promise<unknown>;
  load(ctx: ScenarioContext): LoadSpec;
  probe?(ctx: ScenarioContext): ProbeSpec;
  /**
   * One request sent to both servers before measuring: status, header names and body (after `mask`,
   * for values that differ on every call) must match, or the raw server is not doing the app's work.
   */
  parity(ctx: ScenarioContext): { request: BenchRequest; mask?: (body: unknown) => unknown };
  targets: Target[];
}

const fixed = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : String(value));

/** app req/s ≥ min × raw req/s, both measured in this run. */
export function appOverRawAtLeast(min: number): Target {
  return {
    evaluate({ app, raw }) {
      const value = raw.load.rps > 0 ? app.load.rps / raw.load.rps : 0;
      return {
        target: `app/raw req/s ≥ ${min}`,
        value,
        threshold: min,
        pass: value >= min,
        detail: `${fixed(app.load.rps, 0)} / ${fixed(raw.load.rps, 0)} req/s = ${fixed(value, 3)}`,
      };
    },
  };
}

/** The app's probe p99 (open loop, coordinated omission included) stays under maxMs. */
export function appProbeP99AtMost(maxMs: number): Target {
  return {
    evaluate({ app, raw }) {
      const value = app.probe?.p99Ms ?? Number.POSITIVE_INFINITY;
      return {
        target: `app ${app.probe?.label ?? 'probe'} p99 ≤ ${maxMs} ms`,
        value,
        threshold: maxMs,
        pass: value <= maxMs,
        detail: `app p99 ${fixed(value)} ms (raw ${fixed(raw.probe?.p99Ms ?? Number.NaN)} ms)`,
      };
    },
  };
}

const sideErrors = (side: SideResult) => side.load.errors + (side.probe?.errors ?? 0);

/** No failed request on either side: a benchmark of error answers measures nothing. */
export function noErrors(): Target {
  return {
    evaluate({ app, raw }) {
      const value = sideErrors(app) + sideErrors(raw);
      return {
        target: 'zero errors',
        value,
        threshold: 0,
        pass: value === 0,
        detail: `app ${sideErrors(app)}, raw ${sideErrors(raw)}`,
      };
    },
  };
}
