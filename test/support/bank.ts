import { randomBytes, randomInt } from 'node:crypto';
import { sign } from '../../src/platform/crypto/standard-webhooks.js';
import { TEST_CONNECTOR_SECRET } from './app.js';
import type { Api, ApiResponse } from './http.js';
import { BANK_CREDIT_NOTIFICATIONS } from './paths.js';

/** A NIBSS-shaped session id: 30 random digits. */
export const sessionId = (): string =>
  Array.from({ length: 3 }, () => String(randomInt(0, 10_000_000_000)).padStart(10, '0')).join('');

/** A sender at another bank. */
export const ORIGINATOR = {
  account_name: 'CHIOMA ADEBAYO',
  account_number: '0123456789',
  bank_code: '000013',
  bank_name: 'GTBank',
};

/** A well-formed credit notification for `accountNumber`; `overrides` replace its fields. */
export function notification(accountNumber: string, overrides: Record<string, unknown> = {}) {
  return {
    session_id: sessionId(),
    account_number: accountNumber,
    amount_kobo: 250_000,
    narration: 'Invoice 118',
    originator: ORIGINATOR,
    transaction_at: new Date().toISOString(),
    ...overrides,
  };
}

export interface SignOptions {
  secret?: string;
  /** Unix seconds of webhook-timestamp; default the app clock's now (`nowMs`). */
  timestampSeconds?: number;
  nowMs?: number;
  id?: string;
}

/** The Standard Webhooks headers the connector sends with `body` (exactly these bytes). */
export function connectorHeaders(body: string, options: SignOptions = {}): Record<string, string> {
  const id = options.id ?? `msg_${randomBytes(8).toString('hex')}`;
  const timestamp = options.timestampSeconds ?? Math.floor((options.nowMs ?? Date.now()) / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': sign([options.secret ?? TEST_CONNECTOR_SECRET], id, timestamp, body),
  };
}

/** POSTs `body` to a connector path, signed as the connector signs it. */
export function postSigned(
  api: Api,
  path: string,
  body: unknown,
  options: SignOptions = {},
): Promise<ApiResponse> {
  const text = JSON.stringify(body);
  return api.post(path, undefined, { body: text, headers: connectorHeaders(text, options) });
}

/** A credit notification, signed. */
export const notify = (api: Api, body: unknown, options: SignOptions = {}) =>
  postSigned(api, BANK_CREDIT_NOTIFICATIONS, body, options);
