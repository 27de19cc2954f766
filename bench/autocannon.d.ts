// The part of autocannon 9's programmatic API the bench uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }

  export interface Options {
    url: string;
    connections?: number;
    pipelining?: number;
    /** Seconds. */
    duration?: number;
    /** Seconds before a request counts as a timeout. */
    timeout?: number;
    requests?: Request[];
    /** Replace `[<id>]` in bodies with a unique id per request. */
    idReplacement?: boolean;
  }

  export interface Result {
    /** Seconds. */
    duration: number;
    /** Connection errors, timeouts included. */
    errors: number;
    non2xx: number;
  }

  export default function autocannon(
    options: Options,
    callback: (error: Error | null, result: Result) => void,
  ): EventEmitter;
}
