import type { FastifyBaseLogger } from 'fastify';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { toIso } from './clock.js';

/** Field names whose values never reach a log line, at any depth (compared lower-cased). */
export const SECRET_FIELDS: ReadonlySet<string> = new Set([
  'password',
  'password_confirmation',
  'otp',
  'code',
  'token',
  'bvn',
  'key',
  'secret',
  'authorization',
  'cookie',
  'idempotency-key',
  'id_file',
  'file',
]);

const CENSOR = '[redacted]';

/**
 * An error's own `code` names what failed (SQLITE_FULL, PostgreSQL's SQLSTATE such as 57014, ENOSPC,
 * ECONNRESET): kept, since it is often the only word of the cause. Anything else under `code` (an
 * OTP, a body's field) stays censored.
 */
const ERROR_CODE = /^(?:[A-Z][A-Z0-9_]*|[0-9A-Z]{5})$/;
const isErrorCode = (holder: unknown, key: string, item: unknown): boolean =>
  holder instanceof Error && key === 'code' && typeof item === 'string' && ERROR_CODE.test(item);
const MAX_DEPTH = 6;

/**
 * Censors secret fields wherever they are nested. Objects without secrets are returned as they are
 * (no copy), so the usual access line costs one pass over its keys.
 */
export function redact(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, index) => {
      const cleaned = redact(item, depth + 1);
      if (cleaned !== item) {
        copy ??= [...value];
        copy[index] = cleaned;
      }
    });
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  // formatters.log runs before serializers: an Error's message and stack are not enumerable, so a
  // censored copy must carry them over explicitly.
  let copy: Record<string, unknown> | undefined;
  const start = () =>
    value instanceof Error
      ? { type: value.name, message: value.message, stack: value.stack, ...record }
      : { ...record };
  for (const key of Object.keys(record)) {
    const item = record[key];
    const cleaned =
      SECRET_FIELDS.has(key.toLowerCase()) && !isErrorCode(value, key, item)
        ? CENSOR
        : redact(item, depth + 1);
    if (cleaned !== item) {
      copy ??= start();
      copy[key] = cleaned;
    }
  }
  return copy ?? value;
}

/**
 * Secrets are removed by the logger's configuration, so a call site cannot forget: every object
 * logged passes through `redact` (after serializers, before writing).
 */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    base: { service: 'baas-partner-api' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      level: (label) => ({ level: label }),
      log: (object) => redact(object) as Record<string, unknown>,
    },
  };
}

/**
 * stdout, buffered: lines are gathered as text and handed to the stream 4 KiB at a time (or within a
 * quarter second) as one Buffer, and flushed at exit, so a busy server makes one write a few dozen
 * requests rather than one a request, and encodes text once per batch. (sonic-boom's own text mode
 * measures the whole pending text on every line, Buffer.byteLength of a string it has just appended
 * to, which V8 first flattens into a copy; one Buffer a line cost a sixth of the access line.)
 * Once a write fails for good (the reader is gone: EPIPE, ECONNRESET), later lines are dropped: pino
 * would otherwise re-emit the error with no listener (ending the process) and, at exit, retry the
 * failed write forever, so a server whose log reader had died could never exit.
 */
function stdoutDestination(): DestinationStream {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096, contentMode: 'buffer' });
  let pending = '';
  const handOver = () => {
    if (pending === '') return;
    const chunk = Buffer.from(pending);
    pending = '';
    // Looked up on every call: the error handler below replaces it.
    (destination.write as unknown as (data: Buffer) => boolean).call(destination, chunk);
  };
  // pino's exit handler flushes the stream (flushSync; flush before a natural exit): what is still
  // gathered here goes first.
  const [flush, flushSync] = [destination.flush.bind(destination), destination.flushSync.bind(destination)];
  destination.flush = (callback?: (error?: Error) => void) => {
    handOver();
    flush(callback);
  };
  destination.flushSync = () => {
    handOver();
    flushSync();
  };
  const flushing = setInterval(() => destination.flush(), 250);
  flushing.unref();
  destination.on('error', () => {
    clearInterval(flushing);
    pending = '';
    destination.write = () => true;
    destination.flush = () => undefined;
    destination.flushSync = () => undefined;
    destination.end = () => undefined;
  });
  return {
    write: (line: string) => {
      pending += line;
      if (pending.length >= 4096) handOver();
    },
  };
}

export function createLogger(level: string, stream?: DestinationStream): Logger {
  return pino(loggerOptions(level), stream ?? stdoutDestination());
}

/**
 * What in a URL may be a secret: a path segment of 40 or more token characters (session and link
 * tokens are 43, API keys longer; ids are UUIDs of 36), or a query parameter named like a secret.
 */
const SECRET_IN_URL =
  /\/[A-Za-z0-9_-]{40,}(?=[/?#]|$)|[?&](?:token|key|api_key|secret|code|otp|password|signature)=/i;
const LONG_SEGMENT = /\/[A-Za-z0-9_-]{40,}(?=[/?#]|$)/g;
const SECRET_PARAM = /([?&](?:token|key|api_key|secret|code|otp|password|signature)=)[^&#]*/gi;

/**
 * A URL as the access log may keep it. Tokens travel in headers and bodies, never in URLs; one that
 * arrives in a URL all the same (an old link, a client's mistake) is censored here, so a log reader
 * never holds it. The usual URL passes one regular-expression test and is returned as it is.
 */
export function redactUrl(url: string): string {
  if (!SECRET_IN_URL.test(url)) return url;
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  const rest = query < 0 ? '' : url.slice(query);
  return path.replace(LONG_SEGMENT, `/${CENSOR}`) + rest.replace(SECRET_PARAM, `$1${CENSOR}`);
}

/** What the access line of a request records. */
export interface AccessEntry {
  reqId: string;
  method: string;
  url: string;
  status: number;
  ms: number;
  error_code?: string | undefined;
  ip: string;
}

/** Printable ASCII without `"` and `\`: written between quotes as it is, as JSON.stringify would. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** A string as a JSON string literal; the usual ids, methods, paths and addresses need no escaping. */
const jsonText = (value: string): string => (PLAIN.test(value) ? `"${value}"` : JSON.stringify(value));

/** ".000Z" to ".999Z": an ISO time is its second's text and one of these. */
const MILLISECONDS = Array.from({ length: 1000 }, (_, ms) => `.${String(ms).padStart(3, '0')}Z`);

/**
 * Writes a request's access line exactly as `logger.info(entry, 'request')` would (level, time, the
 * logger's bindings, the entry's fields in order, msg), built directly: pino's general path
 * (formatters, the redaction pass, a serializer lookup per field: none of which these fields need)
 * was most of the line's cost, paid on every request. The time's text is made once a second (a
 * Date's toISOString costs about a microsecond), strings are escaped only when they need it.
 * Written to the logger's own stream, only while info is enabled; a test holds it to pino's own line.
 */
export function accessLog(logger: Logger): (entry: AccessEntry) => void {
  const stream = (logger as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym]!;
  const bindings = (logger as unknown as Record<symbol, string>)[pino.symbols.chindingsSym] ?? '';
  let [second, secondText] = [Number.NaN, ''];
  return (entry) => {
    if (!logger.isLevelEnabled('info')) return;
    const now = Date.now();
    const ms = now % 1000;
    if (now - ms !== second) [second, secondText] = [now - ms, toIso(now - ms).slice(0, 19)];
    const errorCode = entry.error_code === undefined ? '' : `,"error_code":${jsonText(entry.error_code)}`;
    stream.write(
      `{"level":"info","time":"${secondText}${MILLISECONDS[ms]}"${bindings},"reqId":${jsonText(entry.reqId)},` +
        `"method":${jsonText(entry.method)},"url":${jsonText(entry.url)},"status":${entry.status},` +
        `"ms":${entry.ms}${errorCode},"ip":${jsonText(entry.ip)},"msg":"request"}\n`,
    );
  };
}

type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];
type Method = 'info' | 'error' | 'debug' | 'fatal' | 'warn' | 'trace' | 'silent';

/**
 * Fastify's per-request logger (`request.log`), made only when something logs through it. Most
 * requests log only their access line, which is written through the root logger with the request
 * id (the same line), so a pino child per request — its bindings serialized up front — is wasted
 * work on the hot path.
 */
export class LazyChildLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined;
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Record<string, unknown>;
  readonly #options: ChildOptions;

  constructor(parent: FastifyBaseLogger, bindings: Record<string, unknown>, options: ChildOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  #logger(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options);
    return this.#child;
  }

  get level(): string {
    return this.#child?.level ?? this.#options?.level ?? this.#parent.level;
  }
  set level(level: string) {
    this.#logger().level = level;
  }

  #call(method: Method, args: unknown[]): void {
    const logger = this.#logger();
    (logger[method] as (...a: unknown[]) => void).apply(logger, args);
  }
  info(...args: unknown[]): void {
    this.#call('info', args);
  }
  error(...args: unknown[]): void {
    this.#call('error', args);
  }
  warn(...args: unknown[]): void {
    this.#call('warn', args);
  }
  debug(...args: unknown[]): void {
    this.#call('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#call('trace', args);
  }
  fatal(...args: unknown[]): void {
    this.#call('fatal', args);
  }
  silent(...args: unknown[]): void {
    this.#call('silent', args);
  }
  child(bindings: Record<string, unknown>, options?: ChildOptions): FastifyBaseLogger {
    return this.#logger().child(bindings, options);
  }
}
