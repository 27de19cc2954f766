import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';

/** A random loopback source address (127.0.0.0/8 is loopback on Linux), so a test has a client IP of its own. */
export const randomLoopbackAddress = (): string => {
  const [a, b, c] = randomBytes(3);
  return `127.${(a! % 250) + 1}.${b! % 250}.${(c! % 250) + 2}`;
};

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
}

export interface RawRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** An array is written chunk by chunk without Content-Length; the server may answer and close first. */
  body?: string | string[];
  /** The loopback source address to send from. */
  localAddress?: string;
}

/** One HTTP request over node:http, for what fetch does not do: a chosen source address, a chunked body. */
export function rawRequest(url: string, options: RawRequestOptions = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: options.method ?? 'GET',
        headers: options.headers,
        agent: false,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
          }
          resolve({
            status: response.statusCode ?? 0,
            headers,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
        response.on('error', reject);
      },
    );
    const chunked = Array.isArray(options.body);
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (!chunked || (error.code !== 'EPIPE' && error.code !== 'ECONNRESET')) reject(error);
    });
    if (Array.isArray(options.body)) {
      for (const chunk of options.body) request.write(chunk);
      request.end();
    } else {
      request.end(options.body);
    }
  });
}

/** One HTTP/1.1 response as read off a raw socket. */
export interface RawHttpResponse {
  status: number;
  /** Header names lower-cased; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
  /** Everything the server wrote. */
  raw: string;
}

function parseResponse(raw: string): RawHttpResponse | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine = '', ...lines] = raw.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return { status, headers, body: raw.slice(end + 4), raw };
}

/**
 * Writes `chunks` on a raw socket (for bytes fetch cannot produce) and resolves with the first
 * response: once its Content-Length is in, or when the server closes, or after `timeoutMs`.
 * Informational (1xx) responses are skipped.
 */
export function rawHttp(
  port: number,
  chunks: Array<string | Buffer> | string | Buffer,
  timeoutMs = 10_000,
): Promise<RawHttpResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      let raw = Buffer.concat(received).toString('latin1');
      while (/^HTTP\/1\.[01] 1\d\d /.test(raw) && raw.includes('\r\n\r\n'))
        raw = raw.slice(raw.indexOf('\r\n\r\n') + 4);
      const response = parseResponse(raw);
      if (response) resolve(response);
      else reject(new Error(`no HTTP response, received: ${JSON.stringify(raw.slice(0, 300))}`));
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      let raw = Buffer.concat(received).toString('latin1');
      while (/^HTTP\/1\.[01] 1\d\d /.test(raw) && raw.includes('\r\n\r\n'))
        raw = raw.slice(raw.indexOf('\r\n\r\n') + 4);
      const response = parseResponse(raw);
      const length = response ? Number(response.headers['content-length']) : Number.NaN;
      if (response && Number.isFinite(length) && Buffer.byteLength(response.body, 'latin1') >= length)
        finish();
    });
    // The server may hang up while a client is still sending (e.g. after a 413): keep what came.
    socket.on('error', () => undefined);
    socket.on('close', finish);
    socket.on('connect', () => {
      for (const chunk of [chunks].flat()) socket.write(chunk);
    });
  });
}

/**
 * A JSON POST whose headers are sent with `Expect: 100-continue` and whose body is held back: resolves
 * once the server has answered "100 Continue" (it accepted the request and waits for the body), so the
 * request is in flight until finish() sends the body.
 */
export async function heldRequest(url: string, body: string) {
  const request = http.request(url, {
    method: 'POST',
    agent: false,
    headers: {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      expect: '100-continue',
    },
  });
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    request.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    request.on('error', reject);
  });
  const continued = once(request, 'continue');
  request.flushHeaders();
  await continued;
  return { finish: () => request.end(body), response };
}

/** Whether a new connection to the loopback `port` is refused (nothing listens any more). */
export const refusesConnections = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
