import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import secureJson from 'secure-json-parse';
import {
  AppError,
  databaseTrouble,
  databaseUnavailable,
  type ErrorCode,
  isDiskFull,
  storageFull,
} from '../errors/errors.js';
import { type AccessEntry, redactUrl } from '../logger.js';
import type { HttpMetrics } from '../metrics/metrics.js';
import { extend } from '../objects.js';
import type { DiskHealth } from '../storage/disk-health.js';
import { bearerChallenge } from './auth.js';
import { addRouteHook } from './route-hooks.js';
import { API_HEADERS } from './security-headers.js';
import { WEB_APP_PREFIXES } from './web-apps.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** error_code of the response, for the access log line. */
    errorCode: ErrorCode | undefined;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a client's X-Request-Id when it is a sane token, so its logs and ours share an id. */
export function genReqId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

const DOCS_HEADERS: Record<string, string> = extend(API_HEADERS, {
  'cache-control': 'no-cache',
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'",
});

/**
 * The browser apps (web-apps.ts): scripts, styles, fonts and API calls from this origin only, no
 * inline code and no eval; images may also be data: URLs (previews made in the page); no frames at
 * all. Workers are named although they would fall back to script-src 'self': the console's PDF
 * preview runs pdf.js's worker, a hashed asset of this origin, and worker-src keeps that true
 * whatever script-src becomes. Their caching is set per response (hashed assets immutable, pages
 * revalidated), so it is not in this table.
 */
const WEB_HEADERS: Record<string, string> = {
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "worker-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  // A page that another site opened cannot reach into it through window.opener, nor the other way.
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

/** Whether `url` is at or below one of `prefixes` (`/docs`, `/docs/…`, `/docs?…`), read in place. */
function under(url: string, prefixes: readonly string[]): boolean {
  for (const prefix of prefixes) {
    if (!url.startsWith(prefix)) continue;
    const next = url[prefix.length];
    if (next === undefined || next === '/' || next === '?') return true;
  }
  return false;
}

/**
 * The header tables as lists, so that an answer sets them without listing a table's keys again and
 * looking each one up (Fastify's `reply.headers` does both, on every request).
 */
const API_ENTRIES = Object.entries(API_HEADERS);
const DOCS_ENTRIES = Object.entries(DOCS_HEADERS);
const WEB_ENTRIES = Object.entries(WEB_HEADERS);

function setHeaders(reply: FastifyReply, entries: ReadonlyArray<readonly [string, string]>): void {
  for (const [name, value] of entries) reply.header(name, value);
}

const STATUS_FALLBACK: Record<number, ErrorCode> = {
  400: 'MALFORMED_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'UNSUPPORTED_MEDIA_TYPE',
  408: 'MALFORMED_REQUEST',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'VALIDATION_FAILED',
  429: 'RATE_LIMITED',
  431: 'PAYLOAD_TOO_LARGE',
};

const FRAMEWORK_ERRORS: Record<string, { code: ErrorCode; message?: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'UNSUPPORTED_MEDIA_TYPE' },
  FST_ERR_CTP_INVALID_TYPE: { code: 'MALFORMED_REQUEST', message: 'The Content-Type header is malformed.' },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    code: 'PAYLOAD_TOO_LARGE',
    message: 'The request body is larger than 100 KiB.',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'MALFORMED_REQUEST',
    message: 'Content-Length does not match the body.',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'MALFORMED_REQUEST', message: 'The JSON body is empty.' },
  FST_ERR_CTP_INVALID_JSON_BODY: {
    code: 'MALFORMED_REQUEST',
    message: 'The request body is not valid JSON.',
  },
  FST_ERR_BAD_URL: { code: 'NOT_FOUND' },
  // A path id longer than any real id names nothing.
  FST_ERR_MAX_PARAM_LENGTH: { code: 'NOT_FOUND' },
};

/**
 * Turns anything thrown into an AppError; a full disk becomes STORAGE_FULL, other unknown errors
 * INTERNAL_ERROR (5xx are logged with the original error).
 */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as Partial<FastifyError> | undefined;
  const known = fastifyError?.code ? FRAMEWORK_ERRORS[fastifyError.code] : undefined;
  if (known) return new AppError(known.code, known.message ? { message: known.message } : {});
  if (error instanceof SyntaxError && fastifyError?.statusCode === 400) {
    return new AppError('MALFORMED_REQUEST', { message: 'The request body is not valid JSON.' });
  }
  const status = fastifyError?.statusCode;
  if (status && status >= 400 && status < 500)
    return new AppError(STATUS_FALLBACK[status] ?? 'MALFORMED_REQUEST');
  // From the file store or either database: the failed write kept nothing (the file store removes
  // its partial file, a transaction rolls back), so the client may simply retry later.
  if (isDiskFull(error)) return storageFull();
  const trouble = databaseTrouble(error);
  if (trouble) return databaseUnavailable(trouble);
  return new AppError('INTERNAL_ERROR');
}

export function errorBody(error: AppError): Record<string, unknown> {
  return {
    status: 'error',
    message: error.message,
    error_code: error.code,
    ...(error.errors ? { errors: error.errors } : {}),
    ...(error.data !== undefined ? { data: error.data } : {}),
  };
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  request.errorCode = error.code;
  if (error.headers) reply.headers(error.headers);
  return reply.code(error.status).send(errorBody(error));
}

/**
 * An answer written straight to the socket, for the cases Node handles before a request object
 * exists: the error envelope (docs/partner-guide.md, "Responses and errors") with the headers of
 * every API answer, then the connection closes.
 */
function rawErrorAnswer(error: AppError): string {
  const body = JSON.stringify(errorBody(error));
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'x-request-id': randomUUID(),
    ...API_HEADERS,
    connection: 'close',
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n${lines.join('')}\r\n${body}`;
}

/**
 * Errors Node raises before a request exists (malformed request line, header block too large,
 * timeouts) answered with the envelope instead of the server's default body.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // A connection opened ahead of need (a browser's preconnect) that sent nothing within the header
  // timeout asked nothing: it is closed without an answer. An answer would wait on it, and the browser
  // would read it as the response to the request it sends next (a 400 for a page's fetch).
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && socket.bytesRead === 0) {
    socket.destroy();
    return;
  }
  // As Node's own handler: once a response on this connection has started, an error answer
  // written now would land inside its body.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const appError =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? new AppError('PAYLOAD_TOO_LARGE', { message: 'The request headers are too large.' })
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? new AppError('MALFORMED_REQUEST', { message: 'The request was not received in time.' })
          : new AppError('MALFORMED_REQUEST', { message: 'The request is not valid HTTP.' });
    socket.write(rawErrorAnswer(appError));
  }
  socket.destroy(error);
}

/**
 * Node answers some requests itself, outside Fastify, with its own bodies (or none): an unknown
 * `Expect` (417), CONNECT (connection dropped) and an HTTP/1.1 request without Host (400). These
 * give them the same envelope and headers too. `Upgrade` needs nothing: with no 'upgrade'
 * listener Node hands such requests to Fastify like any other, which answers them as plain HTTP.
 */
function registerProtocolEdges(app: FastifyInstance): void {
  const server = app.server as Server;
  // Node emits this for an Expect without 100-continue (a list holding 100-continue gets the
  // 100 Continue). RFC 9110 10.1.1 lets a server ignore what it does not know: served as usual.
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) =>
    server.emit('request', request, response),
  );
  server.on('connect', (_request: IncomingMessage, socket: Socket) => {
    socket.on('error', () => undefined);
    socket.write(
      rawErrorAnswer(
        new AppError('METHOD_NOT_ALLOWED', { message: 'CONNECT is not supported: this is not a proxy.' }),
      ),
    );
    socket.destroySoon();
  });
  app.addHook('onRequest', (request, _reply, done) => {
    // server.requireHostHeader is off (app.ts) so that this answer carries the envelope.
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      done(new AppError('MALFORMED_REQUEST', { message: 'HTTP/1.1 requests need a Host header.' }));
      return;
    }
    done();
  });
}

/** Router-level failures (a URL with broken percent-encoding) get the envelope like any other error. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  reply.headers(API_HEADERS);
  sendError(request, reply, toAppError(error));
}

/** Throws on bytes that are not UTF-8 instead of replacing them; a BOM is kept (JSON.parse refuses it). */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** JSON is UTF-8 (RFC 8259 8.1): a Content-Type may name that charset, or none, but no other. */
function declaresUtf8(contentType: string): boolean {
  if (!contentType.includes(';')) return true; // no parameters, no charset: the usual request
  for (const match of contentType.matchAll(/;\s*charset\s*=\s*("?)([^";\s]*)\1/gi)) {
    const charset = (match[2] ?? '').toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') return false;
  }
  return true;
}

function pathPattern(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) =>
      segment.startsWith(':')
        ? '[^/]+'
        : segment === '*'
          ? '.*'
          : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  return new RegExp(`^${source}/?$`);
}

export interface HttpPlatformOptions {
  docsPrefix: string;
  /** Told of each write refused for a full disk (/readyz reports it). */
  disk?: DiskHealth;
}

/**
 * Writes every request's access line (logger.ts accessLog) where Fastify would write its own
 * "request completed" line: when the response has finished (or failed), for every route, 404 and
 * error answer. An onResponse hook did the same through Fastify's hook runner on every request
 * (Fastify listens for the response's end anyway, since the app has a logger); this is the
 * documented way to replace Fastify's request lines (the `logController` option). Fastify's other
 * request lines stay off, as with `disableRequestLogging`.
 */
export class AccessLogController extends LogController {
  readonly #write: (entry: AccessEntry) => void;
  readonly #metrics: HttpMetrics | undefined;
  readonly #disk: DiskHealth | undefined;

  /**
   * `metrics`: the HTTP series (metrics.ts), recorded here too; undefined while metrics are off.
   * `disk`: told of a write that succeeded while it believes the disk full.
   */
  constructor(write: (entry: AccessEntry) => void, metrics?: HttpMetrics, disk?: DiskHealth) {
    super({ disableRequestLogging: true });
    this.#write = write;
    this.#metrics = metrics;
    this.#disk = disk;
  }

  override incomingRequest(_request: FastifyRequest, reply: FastifyReply): void {
    this.#metrics?.started(reply);
  }

  override requestCompleted(_error: unknown, request: FastifyRequest, reply: FastifyReply): void {
    // Called from the response's 'finish' and 'error' listeners: a throw here would be uncaught.
    try {
      this.#write({
        reqId: request.id,
        method: request.method,
        url: redactUrl(request.url),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        error_code: request.errorCode,
        ip: request.ip,
      });
      this.#metrics?.completed(request, reply);
      if (
        this.#disk?.suspect &&
        reply.statusCode < 400 &&
        request.method !== 'GET' &&
        request.method !== 'HEAD'
      )
        this.#disk.written(request.log);
    } catch (error) {
      request.log.error({ err: error }, 'access line not written');
    }
  }
}

/**
 * Cross-cutting HTTP behaviour (docs/partner-guide.md, "Responses and errors"); registered on the root
 * instance.
 */
export function registerHttpPlatform(app: FastifyInstance, options: HttpPlatformOptions): void {
  app.decorateRequest('errorCode', undefined);
  registerProtocolEdges(app);
  const routes = collectRoutes(app);
  registerJsonParser(app);
  refuseOtherBodyKinds(app);
  registerResponseHeaders(app, options.docsPrefix);
  app.setErrorHandler((error, request, reply) => handleError(error, request, reply, options.disk));
  app.setNotFoundHandler((request, reply) => answerNotFound(routes, request, reply));
}

interface KnownRoute {
  method: string;
  pattern: RegExp;
}

/** Every route's method and path pattern, as routes are added: a path known under another method is a 405. */
function collectRoutes(app: FastifyInstance): KnownRoute[] {
  const routes: KnownRoute[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, pattern: pathPattern(route.url) });
  });
  return routes;
}

/**
 * The one body parser besides multipart's: JSON in UTF-8 only, prototype keys dropped, an empty body
 * taken as no body.
 */
function registerJsonParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    if (!declaresUtf8(request.headers['content-type'] ?? '')) {
      done(new AppError('UNSUPPORTED_MEDIA_TYPE', { message: 'JSON bodies must be UTF-8.' }), undefined);
      return;
    }
    let text: string;
    try {
      text = UTF8.decode(body as Buffer);
    } catch {
      done(new AppError('MALFORMED_REQUEST', { message: 'The request body is not valid UTF-8.' }), undefined);
      return;
    }
    const verifyBody = request.routeOptions.config.verifyBody;
    if (verifyBody) {
      try {
        verifyBody(request, body as Buffer);
      } catch (error) {
        done(error as Error, undefined);
        return;
      }
    }
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' }));
    } catch {
      done(new AppError('MALFORMED_REQUEST', { message: 'The request body is not valid JSON.' }), undefined);
    }
  });
}

/** A JSON endpoint refuses multipart and the other way round, before any part is read. */
function refuseOtherBodyKinds(app: FastifyInstance): void {
  addRouteHook(
    app,
    'preValidation',
    (config) => config.consumes !== undefined,
    (config) => async (request) => {
      const expected = config.consumes;
      const contentType = request.headers['content-type'];
      if (
        contentType !== undefined &&
        (expected === 'multipart') !== /^multipart\/form-data\b/i.test(contentType)
      ) {
        throw new AppError('UNSUPPORTED_MEDIA_TYPE', {
          message: `This endpoint takes ${expected === 'json' ? 'application/json' : 'multipart/form-data'}.`,
        });
      }
    },
  );
}

/** The request id and the security headers of the API, the docs or the browser apps, on every answer. */
function registerResponseHeaders(app: FastifyInstance, docsPrefix: string): void {
  const docs = [docsPrefix];
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    if (under(request.url, WEB_APP_PREFIXES)) {
      setHeaders(reply, WEB_ENTRIES);
      // An error page is never stored; a response without its own caching is not either.
      if (reply.statusCode >= 400 || !reply.hasHeader('cache-control'))
        reply.header('cache-control', 'no-store');
    } else {
      setHeaders(reply, under(request.url, docs) ? DOCS_ENTRIES : API_ENTRIES);
    }
    done(null, payload);
  });

  // A route may narrow them for its own successful answers (a downloaded file's sandbox): its
  // hook runs after the one above.
  addRouteHook(
    app,
    'onSend',
    (config) => config.successHeaders !== undefined,
    (config) => async (request, reply, payload) => {
      const own = reply.statusCode < 400 ? config.successHeaders?.(request, reply) : undefined;
      if (own) reply.headers(own);
      return payload;
    },
  );
}

/** Everything thrown becomes the envelope; 5xx are logged with the original error. */
function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply, disk?: DiskHealth) {
  const answer = (appError: AppError) => {
    const challenge = appError.status === 401 ? bearerChallenge(request) : undefined;
    if (challenge) reply.header('www-authenticate', challenge);
    return sendError(request, reply, appError);
  };
  const appError = toAppError(error);
  if (reply.raw.destroyed && !reply.raw.writableFinished) {
    // The client has gone (its statements were cancelled, client-gone.ts): no one reads this answer.
    request.log.info({ err: error }, 'request ended: the client has gone');
  } else if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
  if (appError.code === 'STORAGE_FULL') disk?.refused(request.log, error);
  const recheck = appError.status < 500 ? request.recheckCredential : undefined;
  if (!recheck) return answer(appError);
  // A key taken from the cache (auth.ts) is looked up before a refusal goes out: a revoked key is
  // answered 401 whatever else was wrong with the request, as if it had been looked up first.
  request.recheckCredential = undefined;
  return recheck().then(
    () => answer(appError),
    (refusal: unknown) => answer(refusal instanceof AppError && refusal.status < 500 ? refusal : appError),
  );
}

function answerNotFound(routes: readonly KnownRoute[], request: FastifyRequest, reply: FastifyReply) {
  const path = request.url.split('?')[0] ?? '';
  const matching = routes.filter((route) => route.pattern.test(path));
  const allowed = matching.filter((route) => route.method !== request.method);
  // A route of this method that answered "not found" (a file a static route does not have) is a 404.
  if (allowed.length > 0 && !matching.some((route) => route.method === request.method)) {
    reply.header('allow', [...new Set(allowed.map((route) => route.method))].join(', '));
    return sendError(request, reply, new AppError('METHOD_NOT_ALLOWED'));
  }
  return sendError(request, reply, new AppError('NOT_FOUND'));
}
