import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { sign } from '../../platform/crypto/standard-webhooks.js';
import { sanitizeForeignText } from '../../platform/text.js';
import {
  type BankRail,
  type NameEnquiryAnswer,
  NIP,
  type OutboundTransfer,
  type TransferAnswer,
  transferAnswerOf,
} from './rail.js';

export interface ConnectorRailOptions {
  /** BANK_CONNECTOR_URL: the connector's base URL, with or without a trailing slash. */
  url: string;
  /** BANK_CONNECTOR_SECRET: `whsec_` + base64; the HMAC key is the decoded bytes. */
  secret: string;
  /** BANK_CONNECTOR_TIMEOUT_MS: a call not answered (body included) within it is no answer. */
  timeoutMs: number;
  log: Logger;
  /** For tests; the global fetch otherwise. */
  fetch?: typeof fetch;
}

/** The most of a response body we read: beyond it, the answer is no answer. */
export const MAX_CONNECTOR_RESPONSE_BYTES = 64 * 1024;

/** A NIP response code as the connector may send it: a few letters or digits (NIP's are two digits). */
const RESPONSE_CODE = /^[A-Za-z0-9]{2,6}$/;
/** A NIBSS session id is 30 digits; a connector's own may differ, so: up to 64 letters or digits. */
const SESSION_ID = /^[A-Za-z0-9]{1,64}$/;
/** The longest account name / name-enquiry reference we take from the connector. */
const MAX_ACCOUNT_NAME = 200;
const MAX_BANK_REF = 128;

/** What one call got: the connector's JSON answer with its response code, or why there was none. */
type Reply =
  | { answered: true; responseCode: string; body: Record<string, unknown> }
  | { answered: false; reason: string };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The response code of a parsed body, if it carries a well-formed one. */
function responseCodeOf(body: unknown): string | undefined {
  if (!isObject(body)) return undefined;
  const code = body['response_code'];
  return typeof code === 'string' && RESPONSE_CODE.test(code) ? code : undefined;
}

const sessionIdOf = (body: Record<string, unknown>): string | null => {
  const value = body['session_id'];
  return typeof value === 'string' && SESSION_ID.test(value) ? value : null;
};

/** The response body as text, or undefined when it is larger than `cap` (reading stops there). */
async function readCapped(response: Response, cap: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > cap) {
    await response.body?.cancel().catch(() => {});
    return undefined;
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > cap) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Why a fetch (or its body) failed, in words: timeout, dropped connection, refused, ... */
function failureOf(error: unknown, signal: AbortSignal, timeoutMs: number): string {
  const name = error instanceof Error ? error.name : '';
  if (signal.aborted || name === 'TimeoutError' || name === 'AbortError') {
    return `no answer within ${timeoutMs} ms`;
  }
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  const code = typeof cause?.code === 'string' ? cause.code : (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return 'connection dropped';
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'connector host not found';
    default:
      // "terminated" is undici's word for a body cut short by the other side.
      if (error instanceof Error && error.message === 'terminated') return 'connection dropped';
      return `connection failed (${typeof code === 'string' ? code : name || 'unknown error'})`;
  }
}

/**
 * The sponsor bank's connector as a bank rail (docs/operator-guide.md, "The bank connector"):
 * every call signed like Standard Webhooks with BANK_CONNECTOR_SECRET. A timeout, a dropped
 * connection, a 5xx, a redirect, a 4xx without a response code, or a body that is not a JSON object
 * with a response code is no answer: `unavailable` for a name enquiry, `unknown` for a transfer. It
 * never throws for the bank's behaviour. Logs the path, status, latency and response code; never the
 * secret, the signatures or the bodies.
 */
export function createConnectorRail(options: ConnectorRailOptions): BankRail {
  const base = options.url.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const log = options.log.child({ component: 'bank-connector' });

  async function call(method: 'GET' | 'POST', path: string, payload?: unknown): Promise<Reply> {
    const body = payload === undefined ? '' : JSON.stringify(payload);
    const id = `msg_${randomBytes(16).toString('hex')}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      accept: 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': sign([options.secret], id, timestamp, body),
    };
    if (method === 'POST') headers['content-type'] = 'application/json';
    const signal = AbortSignal.timeout(options.timeoutMs);
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const noAnswer = (reason: string, status: number | null, level: 'warn' | 'error' = 'warn'): Reply => {
      log[level]({ method, path, status, latencyMs: latency(), reason }, 'bank connector gave no answer');
      return { answered: false, reason };
    };

    let response: Response;
    let text: string | undefined;
    try {
      response = await doFetch(`${base}${path}`, {
        method,
        headers,
        ...(method === 'POST' ? { body } : {}),
        redirect: 'manual',
        signal,
      });
      if (response.status >= 500 || (response.status >= 300 && response.status < 400)) {
        await response.body?.cancel().catch(() => {});
        const level = response.status < 400 ? 'error' : 'warn';
        return noAnswer(`HTTP ${response.status}`, response.status, level);
      }
      text = await readCapped(response, MAX_CONNECTOR_RESPONSE_BYTES);
    } catch (error) {
      return noAnswer(failureOf(error, signal, options.timeoutMs), null);
    }

    const status = response.status;
    if (text === undefined) {
      return noAnswer(`response larger than ${MAX_CONNECTOR_RESPONSE_BYTES} bytes`, status);
    }
    let parsed: unknown;
    let json = true;
    try {
      parsed = JSON.parse(text);
    } catch {
      json = false;
    }
    const responseCode = responseCodeOf(parsed);
    if (status < 200 || status >= 300) {
      // A 4xx is our mistake (a wrong secret, URL or body), not the bank's word: unless it carries one.
      if (responseCode === undefined) return noAnswer(`HTTP ${status}`, status, 'error');
    } else if (!json) {
      return noAnswer(`HTTP ${status}: not JSON`, status);
    } else if (responseCode === undefined) {
      return noAnswer(`HTTP ${status}: no valid response_code`, status);
    }
    log.info({ method, path, status, latencyMs: latency(), responseCode }, 'bank connector answered');
    return { answered: true, responseCode: responseCode!, body: parsed as Record<string, unknown> };
  }

  const unknown = (reason: string): TransferAnswer => ({ outcome: 'unknown', responseCode: null, reason });
  const answerOf = (reply: Reply): TransferAnswer =>
    reply.answered ? transferAnswerOf(reply.responseCode, sessionIdOf(reply.body)) : unknown(reply.reason);

  return {
    async nameEnquiry(bankCode, accountNumber): Promise<NameEnquiryAnswer> {
      const reply = await call('POST', '/name-enquiry', {
        bank_code: bankCode,
        account_number: accountNumber,
      });
      if (!reply.answered) return { outcome: 'unavailable', responseCode: null, reason: reply.reason };
      const code = reply.responseCode;
      if (code === NIP.done) {
        const name = reply.body['account_name'];
        // The bank's text: control and bidirectional characters become spaces (platform/text.ts).
        const accountName = typeof name === 'string' ? sanitizeForeignText(name, MAX_ACCOUNT_NAME + 1) : '';
        if (accountName === '' || accountName.length > MAX_ACCOUNT_NAME) {
          return {
            outcome: 'unavailable',
            responseCode: code,
            reason: `the bank answered ${code} without a usable account name`,
          };
        }
        const ref = reply.body['name_enquiry_ref'];
        const bankRef = typeof ref === 'string' && ref !== '' && ref.length <= MAX_BANK_REF ? ref : null;
        return { outcome: 'found', accountName, bankRef };
      }
      if ((NIP.unknownAccount as readonly string[]).includes(code))
        return { outcome: 'not_found', responseCode: code };
      if ((NIP.unavailable as readonly string[]).includes(code)) {
        return {
          outcome: 'unavailable',
          responseCode: code,
          reason: `the bank answered ${code}: bank unavailable`,
        };
      }
      return {
        outcome: 'unavailable',
        responseCode: code,
        reason: `the bank answered ${code} to the name enquiry`,
      };
    },

    async send(transfer: OutboundTransfer): Promise<TransferAnswer> {
      return answerOf(
        await call('POST', '/transfers', {
          reference: transfer.reference,
          amount_kobo: transfer.amountKobo,
          source_account_number: transfer.sourceAccountNumber,
          source_account_name: transfer.sourceAccountName,
          bank_code: transfer.bankCode,
          account_number: transfer.accountNumber,
          account_name: transfer.accountName,
          name_enquiry_ref: transfer.nameEnquiryRef,
          narration: transfer.narration,
        }),
      );
    },

    async query(reference: string): Promise<TransferAnswer> {
      return answerOf(await call('GET', `/transfers/${encodeURIComponent(reference)}`));
    },
  };
}
