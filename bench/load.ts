import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon, { type Result } from 'autocannon';
import type { BenchRequest, LoadSpec, Measurement, ProbeSpec } from './scenario.js';

/**
 * Collects one side's answers over one or more runs: latencies in milliseconds (sub-millisecond,
 * unlike autocannon's integer histogram), status codes, errors and time spent.
 */
export class Recorder {
  private readonly latencies: number[] = [];
  private readonly statusCodes: Record<string, number> = {};
  private elapsedSec = 0;
  private errors = 0;

  record(statusCode: number, latencyMs: number): void {
    this.latencies.push(latencyMs);
    const key = String(statusCode);
    this.statusCodes[key] = (this.statusCodes[key] ?? 0) + 1;
  }

  /** Takes over everything another recorder collected (a round kept after a retry). */
  absorb(other: Recorder): void {
    for (const latency of other.latencies) this.latencies.push(latency);
    for (const [status, count] of Object.entries(other.statusCodes)) {
      this.statusCodes[status] = (this.statusCodes[status] ?? 0) + count;
    }
    this.elapsedSec += other.elapsedSec;
    this.errors += other.errors;
  }

  endRun(elapsedSec: number, errors: number): void {
    this.elapsedSec += elapsedSec;
    this.errors += errors;
  }

  summarise(label: string): Measurement {
    const sorted = Float64Array.from(this.latencies).sort();
    const at = (q: number) => (sorted.length === 0 ? Number.NaN : sorted[Math.ceil(q * sorted.length) - 1]!);
    return {
      label,
      rps: sorted.length / this.elapsedSec,
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      maxMs: sorted.length === 0 ? Number.NaN : sorted[sorted.length - 1]!,
      responses: sorted.length,
      errors: this.errors,
      statusCodes: this.statusCodes,
      durationSec: this.elapsedSec,
    };
  }
}

/** Closed loop with autocannon: every connection sends its next request as soon as an answer arrives. */
export async function runLoad(
  baseUrl: string,
  spec: LoadSpec,
  durationSec: number,
  recorder: Recorder,
): Promise<void> {
  const started = performance.now();
  const result = await new Promise<Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: baseUrl,
        connections: spec.connections,
        duration: durationSec,
        timeout: 10,
        requests: spec.requests,
        ...(spec.idReplacement ? { idReplacement: true } : {}),
      },
      (error, outcome) => (error ? reject(error) : resolve(outcome)),
    );
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, latencyMs: number) =>
      recorder.record(statusCode, latencyMs),
    );
  });
  recorder.endRun((performance.now() - started) / 1000, result.errors + result.non2xx + result.mismatches);
}

function get(agent: Agent, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/**
 * Open loop on one keep-alive connection: request i is due at start + i / rate. A request held up by a
 * slow predecessor is timed from when it was due (no coordinated omission); one sent on time is timed
 * from when it was sent, so timer slack in this process does not count against the server.
 */
export async function runProbe(
  baseUrl: string,
  spec: ProbeSpec,
  durationSec: number,
  recorder: Recorder,
): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const intervalMs = 1000 / spec.ratePerSec;
  const started = performance.now();
  const end = started + durationSec * 1000;
  let errors = 0;
  let previousEnd = started;
  try {
    for (let i = 0; ; i++) {
      const due = started + i * intervalMs;
      if (due >= end) break;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const sent = previousEnd > due ? due : performance.now();
      let status = 0;
      try {
        status = await get(agent, `${baseUrl}${spec.path}`);
      } catch {
        status = 0;
      }
      previousEnd = performance.now();
      if (status < 200 || status >= 300) errors += 1;
      recorder.record(status, previousEnd - sent);
    }
  } finally {
    agent.destroy();
  }
  recorder.endRun((performance.now() - started) / 1000, errors);
}

export interface Sample {
  status: number;
  headerNames: string[];
  body: unknown;
}

/** Headers that describe the connection or the moment, not the response. */
const VOLATILE_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

export async function sample(baseUrl: string, req: BenchRequest): Promise<Sample> {
  const response = await fetch(`${baseUrl}${req.path}`, {
    method: req.method,
    ...(req.headers ? { headers: req.headers } : {}),
    ...(req.body !== undefined ? { body: req.body } : {}),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Compared as text.
  }
  return {
    status: response.status,
    headerNames: [...response.headers.keys()].filter((name) => !VOLATILE_HEADERS.has(name)).sort(),
    body,
  };
}
