import { once } from 'node:events';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the fake answers for one BVN. */
export interface PremblyReply {
  /** HTTP status, 200 unless told. */
  status?: number;
  /** JSON body. */
  body?: unknown;
  /** A raw body sent as is (e.g. an HTML error page); wins over `body`. */
  raw?: string;
  /** Waits this long before answering (a provider slower than our timeout). */
  delayMs?: number;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface BvnRecord {
  firstName: string;
  middleName?: string;
  lastName: string;
  /** As Prembly writes it, e.g. "12-Apr-1985". */
  dateOfBirth: string;
}

/** Prembly's answer for a BVN it found. */
export const premblyFound = (record: BvnRecord): PremblyReply => ({
  body: {
    status: true,
    detail: 'Verification Successfull',
    response_code: '00',
    data: { bvn: 'redacted', ...record, gender: 'Female', phoneNumber1: '08030000000' },
    verification: { status: 'VERIFIED', reference: 'ref-00' },
  },
});

/** Prembly's answer with a response_code other than 00 (01 not found, 02 unavailable, ...). */
export const premblyCode = (responseCode: string, detail: string): PremblyReply => ({
  body: { status: false, detail, response_code: responseCode },
});

const NOT_FOUND = premblyCode('01', 'BVN not found');

/**
 * A real HTTP server on loopback that speaks Prembly's BVN lookup: POST /verification/bvn with the
 * app-id and x-api-key headers and a JSON body {number}. Wrong credentials get 401 and a malformed
 * request 400, as the real service answers; otherwise each BVN gets the reply it was told
 * (`answer`), or "not found". Every request is recorded.
 */
export class PremblyServer {
  readonly requests: ReceivedRequest[] = [];
  private readonly replies = new Map<string, PremblyReply>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly server: http.Server;

  constructor(readonly credentials: { appId: string; apiKey: string }) {
    this.server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        this.requests.push({
          method: request.method ?? '',
          path: request.url ?? '',
          headers: request.headers,
          body,
        });
        this.respond(request, body, response);
      });
    });
  }

  private respond(request: http.IncomingMessage, body: string, response: http.ServerResponse): void {
    const json = (status: number, payload: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(payload));
    };
    if (request.method !== 'POST' || request.url !== '/verification/bvn') {
      json(404, { status: false, detail: 'Not found' });
      return;
    }
    if (
      request.headers['app-id'] !== this.credentials.appId ||
      request.headers['x-api-key'] !== this.credentials.apiKey
    ) {
      json(401, { status: false, detail: 'Invalid credentials' });
      return;
    }
    let number: unknown;
    try {
      number = (JSON.parse(body) as { number?: unknown }).number;
    } catch {
      json(400, { status: false, detail: 'Invalid JSON' });
      return;
    }
    if (!/^application\/json\b/.test(request.headers['content-type'] ?? '') || typeof number !== 'string') {
      json(400, { status: false, detail: 'number is required' });
      return;
    }
    const reply = this.replies.get(number) ?? NOT_FOUND;
    const send = () => {
      if (response.destroyed) return;
      if (reply.raw !== undefined) {
        response.writeHead(reply.status ?? 200, { 'content-type': 'text/html' });
        response.end(reply.raw);
      } else {
        json(reply.status ?? 200, reply.body ?? {});
      }
    };
    if (!reply.delayMs) {
      send();
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      send();
    }, reply.delayMs);
    this.timers.add(timer);
  }

  /** Tells the fake what to answer for a BVN. */
  answer(bvn: string, reply: PremblyReply): this {
    this.replies.set(bvn, reply);
    return this;
  }

  requestsFor(bvn: string): ReceivedRequest[] {
    return this.requests.filter((request) => {
      try {
        return (JSON.parse(request.body) as { number?: unknown }).number === bvn;
      } catch {
        return false;
      }
    });
  }

  async start(): Promise<this> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
