// The part of autocannon 9's programmatic API the bench uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }

  export interface Options {
    url: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    /** Seconds before a request counts as a timeout. */
    timeout?: number;
    pipelining?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    requests?: Request[];
    /** Replace `[<id>]` in bodies with a unique id per request. */
    idReplacement?: boolean;
    overallRate?: number;
    title?: string;
  }

  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }

  export interface Result {
    title?: string;
    url: string;
    /** Seconds. */
    duration: number;
    /** Connection errors, timeouts included. */
    errors: number;
    timeouts: number;
    mismatches: number;
    non2xx: number;
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    statusCodeStats: Record<string, { count: number }>;
    start: Date;
    finish: Date;
  }

  export interface Instance extends EventEmitter {
    stop(): void;
  }

  export default function autocannon(
    options: Options,
    callback: (error: Error | null, result: Result) => void,
  ): Instance;
}
