// The part of autocannon 9's API the bench uses (the package ships no types). Durations in seconds.
declare module 'autocannon' {
  export type Request = {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Called before each send: the request to send instead (a fresh signature, a unique id). */
    setupRequest?: (request: Request) => Request;
  };
  type Options = { url: string; connections: number; pipelining: number; duration: number; timeout: number };
  type Result = { duration: number; errors: number; non2xx: number };
  export default function autocannon(
    options: Options & { requests: Request[]; idReplacement: boolean },
    done: (error: Error | null, result: Result) => void,
  ): import('node:events').EventEmitter;
}
