import { randomBytes, randomInt } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { sign, verify } from '../../src/platform/crypto/standard-webhooks.js';

/**
 * A fake sponsor-bank connector (docs/operator-guide.md, "The bank connector"), on loopback, for
 * tests. It verifies every request's Standard Webhooks signature (a bad one: 401, counted), speaks
 * POST /name-enquiry, POST /transfers and GET /transfers/{reference}, deduplicates transfers on
 * `reference` like a real bank, records everything, and misbehaves on purpose as scripted per
 * beneficiary account number (`script`) or for every account (`scriptAll`).
 */

/** One answer of the fake. Everything optional: by default it answers 200 and response_code 00. */
export interface Reply {
  /** The NIP response code (default `00`). For a transfer, also what the bank does with it. */
  responseCode?: string;
  /** Name enquiry only: the account name given with `00` (default a made-up name; `null`: none). */
  accountName?: string | null;
  /** Name enquiry only: the bank's reference (default generated; `null`: none). */
  nameEnquiryRef?: string | null;
  /** The session id given (default: the transfer's, 30 digits once successful; `null`: none). */
  sessionId?: string | null;
  /** Waits this long before answering (longer than the client's timeout: no answer until it). */
  delayMs?: number;
  /** Destroys the socket without answering (after `delayMs`, if any). */
  drop?: boolean;
  /** HTTP status (default 200): e.g. 500, 502, 503. */
  status?: number;
  /** A raw body sent as is, e.g. 'not json'; wins over every field above but `status`. */
  body?: string;
  /** A JSON body sent as is; wins over the response fields. */
  json?: unknown;
  /** POST /transfers only: false when the bank never took the transfer (nothing recorded). */
  accept?: boolean;
}

/** One reply, or a sequence: the n-th call answers the n-th, the last one repeats. */
export type Replies = Reply | readonly Reply[];

export interface Behaviour {
  nameEnquiry?: Replies;
  /** POST /transfers (a first POST of a reference; a repeat answers the transfer as it stands). */
  transfer?: Replies;
  /** GET /transfers/{reference}: the status query. Default: the transfer as it stands. */
  query?: Replies;
}

export type FakeTransferStatus = 'pending' | 'successful' | 'failed' | 'reversed';

export interface FakeTransfer {
  /** The first POST's parsed body. */
  body: Record<string, unknown>;
  status: FakeTransferStatus;
  responseCode: string;
  /** 30 digits, generated when the transfer becomes successful. */
  session_id: string | null;
}

export interface FakeRequest {
  method: string;
  /** As received (percent-encoding kept). */
  path: string;
  /** The parsed JSON body; undefined for an empty or unparsable one. */
  body: unknown;
  /** The raw body as text. */
  raw: string;
  headers: http.IncomingHttpHeaders;
  /** undefined: a valid signature; else why it was refused. */
  signatureError: string | undefined;
  /** Date.now() when it arrived. */
  at: number;
}

export interface TransferUpdate {
  reference: string;
  status: 'successful' | 'failed' | 'reversed';
  session_id?: string;
  response_code?: string;
  reason?: string;
}

export interface FakeBank {
  /** Base URL, no trailing slash: http://127.0.0.1:<port>. */
  readonly url: string;
  /** Every request, in order of arrival, bad signatures included. */
  readonly requests: readonly FakeRequest[];
  /** reference → the transfer the bank holds. */
  readonly transfers: ReadonlyMap<string, FakeTransfer>;
  /** Requests refused for their signature (401). */
  readonly signatureFailures: number;
  /** What this beneficiary account's calls answer (replaces its earlier script and restarts sequences). */
  script(accountNumber: string, behaviour: Behaviour): void;
  /** What every account without its own script answers, per endpoint. */
  scriptAll(behaviour: Behaviour): void;
  /** How many validly signed POST /transfers carried this reference. */
  posts(reference: string): number;
  /** Sends the connector's late word to our API (POST {apiBaseUrl}/baas/api/v1/bank/transfer-updates). */
  pushUpdate(
    apiBaseUrl: string,
    update: TransferUpdate,
    options?: { secret?: string },
  ): Promise<{ status: number; body: unknown }>;
  /** Forgets scripts, requests, transfers and counts; cancels delayed answers. */
  reset(): void;
  /** Stops: pending delays cleared, every open socket destroyed. */
  close(): Promise<void>;
}

export const TRANSFER_UPDATES_PATH = '/baas/api/v1/bank/transfer-updates';
const MAX_REQUEST_BYTES = 1024 * 1024;

/** A NIBSS-shaped session id: 30 random digits. */
export const fakeSessionId = (): string =>
  Array.from({ length: 3 }, () => String(randomInt(0, 10_000_000_000)).padStart(10, '0')).join('');

const PENDING = ['09', '97', '91', '96'];
const statusOfCode = (code: string): FakeTransferStatus =>
  code === '00' ? 'successful' : PENDING.includes(code) ? 'pending' : 'failed';

type Endpoint = keyof Behaviour;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const TRANSFER_FIELDS: Record<string, 'string' | 'string?' | 'kobo'> = {
  reference: 'string',
  amount_kobo: 'kobo',
  source_account_number: 'string',
  source_account_name: 'string',
  bank_code: 'string',
  account_number: 'string',
  account_name: 'string',
  name_enquiry_ref: 'string?',
  narration: 'string',
};

/** What is wrong with a POST /transfers body, as a real connector would refuse it (400). */
function transferBodyError(body: unknown): string | undefined {
  if (!isObject(body)) return 'body must be a JSON object';
  for (const [field, kind] of Object.entries(TRANSFER_FIELDS)) {
    const value = body[field];
    if (kind === 'kobo' && !(Number.isSafeInteger(value) && (value as number) > 0)) return `${field}`;
    if (kind === 'string' && typeof value !== 'string') return `${field}`;
    if (kind === 'string?' && value !== null && typeof value !== 'string') return `${field}`;
  }
  return undefined;
}

export async function startFakeBank(options: { secret: string; nowMs?: () => number }): Promise<FakeBank> {
  const now = options.nowMs ?? Date.now;
  const requests: FakeRequest[] = [];
  const transfers = new Map<string, FakeTransfer>();
  const scripts = new Map<string, Behaviour>();
  let global: Behaviour = {};
  /** Calls so far per script key + endpoint, for sequences. */
  const counters = new Map<string, number>();
  /** Delayed answers not yet sent, with the response each holds open. */
  const timers = new Map<NodeJS.Timeout, http.ServerResponse>();
  const sockets = new Set<Socket>();
  let signatureFailures = 0;
  let closed = false;

  /** The reply for this call of `endpoint` by `accountNumber`'s script, else the global one. */
  function nextReply(accountNumber: string | undefined, endpoint: Endpoint): Reply {
    const own = accountNumber !== undefined ? scripts.get(accountNumber)?.[endpoint] : undefined;
    const replies = own ?? global[endpoint];
    if (replies === undefined) return {};
    const key = `${own !== undefined ? `account:${accountNumber}` : '*'}:${endpoint}`;
    const index = counters.get(key) ?? 0;
    counters.set(key, index + 1);
    if (!Array.isArray(replies)) return replies as Reply;
    return replies.length === 0 ? {} : replies[Math.min(index, replies.length - 1)]!;
  }

  /** Answers `response` as `reply` says, `fields` being the JSON answer when nothing overrides it. */
  function answer(response: http.ServerResponse, reply: Reply, fields: () => Record<string, unknown>): void {
    const send = () => {
      if (response.destroyed || response.writableEnded) return;
      if (reply.drop) {
        response.socket?.destroy();
        return;
      }
      const status = reply.status ?? 200;
      if (reply.body !== undefined) {
        response.writeHead(status, { 'content-type': 'text/plain' });
        response.end(reply.body);
        return;
      }
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(reply.json !== undefined ? reply.json : fields()));
    };
    if (!reply.delayMs) {
      send();
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      send();
    }, reply.delayMs);
    timers.set(timer, response);
  }

  const json = (response: http.ServerResponse, status: number, payload: unknown) => {
    if (response.destroyed || response.writableEnded) return;
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(payload));
  };

  /** A transfer's state after the bank answered `code` about it (successful: a session id). Final states stay. */
  function settle(transfer: FakeTransfer, code: string, sessionId?: string | null): void {
    if (transfer.status !== 'pending') return;
    transfer.responseCode = code;
    transfer.status = statusOfCode(code);
    if (transfer.status === 'successful') transfer.session_id = sessionId ?? fakeSessionId();
  }

  const sessionField = (reply: Reply, transfer: FakeTransfer | undefined) => {
    const id = reply.sessionId !== undefined ? reply.sessionId : (transfer?.session_id ?? null);
    return id === null ? {} : { session_id: id };
  };

  function nameEnquiry(body: unknown, response: http.ServerResponse): void {
    if (
      !isObject(body) ||
      typeof body['bank_code'] !== 'string' ||
      typeof body['account_number'] !== 'string'
    ) {
      json(response, 400, { error: 'bank_code and account_number are required' });
      return;
    }
    const accountNumber = body['account_number'];
    const reply = nextReply(accountNumber, 'nameEnquiry');
    answer(response, reply, () => {
      const code = reply.responseCode ?? '00';
      if (code !== '00') return { response_code: code };
      const name =
        reply.accountName !== undefined ? reply.accountName : `FAKE CUSTOMER ${accountNumber.slice(-4)}`;
      const ref =
        reply.nameEnquiryRef !== undefined ? reply.nameEnquiryRef : `NE${randomBytes(8).toString('hex')}`;
      return {
        response_code: code,
        ...(name === null ? {} : { account_name: name }),
        ...(ref === null ? {} : { name_enquiry_ref: ref }),
      };
    });
  }

  function postTransfer(body: unknown, response: http.ServerResponse): void {
    const error = transferBodyError(body);
    if (error !== undefined || !isObject(body)) {
      json(response, 400, { error: `invalid field: ${error}` });
      return;
    }
    const reference = body['reference'] as string;
    const existing = transfers.get(reference);
    if (existing) {
      // A real bank deduplicates on our reference: no second transfer, the first one's outcome.
      json(response, 200, { response_code: existing.responseCode, ...sessionField({}, existing) });
      return;
    }
    const reply = nextReply(body['account_number'] as string, 'transfer');
    const code = reply.responseCode ?? '00';
    let transfer: FakeTransfer | undefined;
    if (reply.accept !== false) {
      transfer = { body, status: 'pending', responseCode: code, session_id: null };
      settle(transfer, code, reply.sessionId);
      transfers.set(reference, transfer);
    }
    answer(response, reply, () => ({ response_code: code, ...sessionField(reply, transfer) }));
  }

  function queryTransfer(reference: string, response: http.ServerResponse): void {
    const transfer = transfers.get(reference);
    const accountNumber = transfer ? (transfer.body['account_number'] as string) : undefined;
    const reply = nextReply(accountNumber, 'query');
    // Unknown to the bank: NIP's 25, "unable to locate record".
    const code = reply.responseCode ?? (transfer ? transfer.responseCode : '25');
    // A scripted answer is the bank's knowledge, whether or not the answer reaches the caller.
    if (transfer && reply.responseCode !== undefined) settle(transfer, code, reply.sessionId);
    answer(response, reply, () => ({ response_code: code, ...sessionField(reply, transfer) }));
  }

  function route(request: FakeRequest, response: http.ServerResponse): void {
    const url = new URL(request.path, 'http://fake-bank');
    const match = /^\/transfers\/([^/]+)$/.exec(url.pathname);
    if (request.method === 'POST' && url.pathname === '/name-enquiry') {
      nameEnquiry(request.body, response);
    } else if (request.method === 'POST' && url.pathname === '/transfers') {
      postTransfer(request.body, response);
    } else if (request.method === 'GET' && match) {
      let reference: string | undefined;
      try {
        reference = decodeURIComponent(match[1]!);
      } catch {
        json(response, 400, { error: 'bad reference encoding' });
      }
      if (reference !== undefined) queryTransfer(reference, response);
    } else {
      json(response, 404, { error: 'not found' });
    }
  }

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('error', () => {});
    response.on('error', () => {});
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    request.on('end', () => {
      if (tooLarge) return json(response, 413, { error: 'too large' });
      const rawBytes = Buffer.concat(chunks);
      const raw = rawBytes.toString('utf8');
      let body: unknown;
      try {
        body = raw === '' ? undefined : JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const signatureError = verify(options.secret, request.headers, rawBytes, Math.floor(now() / 1000));
      const record: FakeRequest = {
        method: request.method ?? '',
        path: request.url ?? '',
        body,
        raw,
        headers: request.headers,
        signatureError,
        at: Date.now(),
      };
      requests.push(record);
      if (signatureError !== undefined) {
        signatureFailures++;
        return json(response, 401, { error: 'SIGNATURE_INVALID' });
      }
      if (raw !== '' && body === undefined) return json(response, 400, { error: 'body is not JSON' });
      try {
        route(record, response);
      } catch (error) {
        json(response, 500, { error: String(error) });
      }
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  server.on('error', () => {});
  const { port } = server.address() as AddressInfo;

  /** Cancels the delayed answers and cuts their connections: nobody waits for them. */
  const clearTimers = () => {
    for (const [timer, response] of timers) {
      clearTimeout(timer);
      response.socket?.destroy();
    }
    timers.clear();
  };

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    transfers,
    get signatureFailures() {
      return signatureFailures;
    },
    script(accountNumber, behaviour) {
      scripts.set(accountNumber, behaviour);
      for (const key of [...counters.keys()]) {
        if (key.startsWith(`account:${accountNumber}:`)) counters.delete(key);
      }
    },
    scriptAll(behaviour) {
      global = behaviour;
      for (const key of [...counters.keys()]) if (key.startsWith('*:')) counters.delete(key);
    },
    posts(reference) {
      return requests.filter(
        (request) =>
          request.signatureError === undefined &&
          request.method === 'POST' &&
          request.path === '/transfers' &&
          isObject(request.body) &&
          request.body['reference'] === reference,
      ).length;
    },
    async pushUpdate(apiBaseUrl, update, pushOptions = {}) {
      const text = JSON.stringify(update);
      const id = `msg_${randomBytes(8).toString('hex')}`;
      const timestamp = Math.floor(now() / 1000);
      const transfer = transfers.get(update.reference);
      if (transfer) {
        transfer.status = update.status;
        if (update.response_code !== undefined) transfer.responseCode = update.response_code;
        if (update.session_id !== undefined) transfer.session_id = update.session_id;
      }
      const response = await fetch(`${apiBaseUrl.replace(/\/+$/, '')}${TRANSFER_UPDATES_PATH}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': sign([pushOptions.secret ?? options.secret], id, timestamp, text),
        },
        body: text,
        signal: AbortSignal.timeout(10_000),
      });
      const answerText = await response.text();
      let body: unknown = answerText;
      try {
        body = JSON.parse(answerText);
      } catch {}
      return { status: response.status, body };
    },
    reset() {
      clearTimers();
      requests.length = 0;
      transfers.clear();
      scripts.clear();
      global = {};
      counters.clear();
      signatureFailures = 0;
    },
    async close() {
      if (closed) return;
      closed = true;
      clearTimers();
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      await stopped;
    },
  };
}
