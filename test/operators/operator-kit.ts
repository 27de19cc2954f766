import assert from 'node:assert/strict';
import { type AdminDocument, adminGet, adminHeaders, adminPost, partnerRecord } from '../support/admin.js';
import type { TestApp } from '../support/app.js';
import { randomPassword, uniqueEmail } from '../support/factories.js';
import { type ApiResponse, listAll } from '../support/http.js';
import { ADMIN_PREFIX, AUDIT_EVENTS } from '../support/paths.js';
import { nextTotpStep, totp } from '../support/totp.js';

/** The back office's operators (docs/operator-guide.md): paths, a TOTP authenticator, console sessions. */

export const SESSION = `${ADMIN_PREFIX}session`;
export const SESSION_PASSWORD = `${SESSION}/password`;
export const SESSION_SECOND_FACTOR = `${SESSION}/second-factor`;
export const SESSION_LOGOUT = `${SESSION}/logout`;
export const INVITATIONS = `${ADMIN_PREFIX}invitations`;
/** The set-up steps of a link; its token always travels in the body, never in the URL. */
export const INVITATION_LOOKUP = `${INVITATIONS}/lookup`;
export const INVITATION_SECOND_FACTOR = `${INVITATIONS}/second-factor`;
export const INVITATION_ACCEPT = `${INVITATIONS}/accept`;
export const ME_PASSWORD = `${ADMIN_PREFIX}me/password`;
export const ME_SESSIONS = `${ADMIN_PREFIX}me/sessions`;
export const OPERATORS = `${ADMIN_PREFIX}operators`;
export const operatorUrl = (id: string, action: 'deactivate' | 'reset-second-factor') =>
  `${OPERATORS}/${id}/${action}`;

/** The console's origin where a test needs one: the set-up links are made under it. */
export const PUBLIC_URL = 'https://console.bank.example';
/** A password the strength rules accept. */
export const STRONG = 'Lagoon-Cassava-Harmattan-19';

export const PLAIN_COOKIE = 'baas_console';
export const HOST_COOKIE = '__Host-baas_console';

// The tests' own authenticator app (RFC 6238 on node:crypto, independent of the server's otpauth).
export { base32Decode, hotp, notTheCode, TOTP_STEP_MS, totp, totpWithKey } from '../support/totp.js';

// ---------------------------------------------------------------------------------------------
// Cookies and console sessions.

export interface SetCookie {
  name: string;
  value: string;
  /** Attribute names lower-cased; a flag attribute maps to true. */
  attributes: Record<string, string | true>;
}

export function parseSetCookie(header: string): SetCookie {
  const [pair = '', ...parts] = header.split(';').map((part) => part.trim());
  const equals = pair.indexOf('=');
  const attributes: Record<string, string | true> = {};
  for (const part of parts) {
    const at = part.indexOf('=');
    if (at < 0) attributes[part.toLowerCase()] = true;
    else attributes[part.slice(0, at).toLowerCase()] = part.slice(at + 1);
  }
  return { name: pair.slice(0, equals), value: pair.slice(equals + 1), attributes };
}

/** The one Set-Cookie of a response (fails unless there is exactly one). */
export function theSetCookie(response: ApiResponse): SetCookie {
  const headers = response.headers.getSetCookie();
  assert.equal(
    headers.length,
    1,
    `one Set-Cookie expected, got ${JSON.stringify(headers)}: ${response.text}`,
  );
  return parseSetCookie(headers[0]!);
}

/** A signed-in console: the cookie a browser would keep and the anti-forgery token its page holds. */
export interface ConsoleSession {
  cookieName: string;
  token: string;
  csrf: string;
  /** The server's own origin (PUBLIC_URL's where set), as the console page's requests carry it. */
  origin: string;
}

/** The session a 200/201 answer (sign-in, accepted invitation) opened. */
export function sessionFrom(t: Pick<TestApp, 'url' | 'env'>, response: ApiResponse): ConsoleSession {
  const cookie = theSetCookie(response);
  assert.ok(cookie.value.length >= 32, `a session token of 256 bits expected: ${cookie.value}`);
  const csrf = response.body.data.csrf_token as string;
  assert.equal(typeof csrf, 'string');
  assert.ok(csrf.length >= 20, `an anti-forgery token expected: ${csrf}`);
  return { cookieName: cookie.name, token: cookie.value, csrf, origin: t.env['PUBLIC_URL'] ?? t.url };
}

export const cookieOf = (session: ConsoleSession): string => `${session.cookieName}=${session.token}`;

/** A console read: the cookie alone, as the browser sends it. */
export const consoleGet = (
  t: Pick<TestApp, 'api'>,
  session: ConsoleSession,
  path: string,
  headers: Record<string, string> = {},
) => t.api.get(path, { headers: { cookie: cookieOf(session), ...headers } });

/** A console change: cookie, X-CSRF-Token and Origin, as the console page sends them (`headers` override). */
export const consolePost = (
  t: Pick<TestApp, 'api'>,
  session: ConsoleSession,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) =>
  t.api.post(path, body, {
    headers: { cookie: cookieOf(session), 'x-csrf-token': session.csrf, origin: session.origin, ...headers },
  });

// ---------------------------------------------------------------------------------------------
// Operators made over HTTP.

/** The token of a one-time set-up link `<PUBLIC_URL>/console/setup#token=…`. */
export function linkToken(url: string): string {
  const match = /\/console\/setup#token=([A-Za-z0-9_-]{43})$/.exec(url);
  assert.ok(match, `a set-up link expected: ${url}`);
  return match[1]!;
}

/** An invitation made with ADMIN_API_KEY (or by `by`, an admin's console session); answers its link token. */
export async function invite(
  t: Pick<TestApp, 'api'>,
  email: string,
  role: 'admin' | 'reviewer',
  by?: ConsoleSession,
): Promise<string> {
  const response = by
    ? await consolePost(t, by, INVITATIONS, { email, role })
    : await adminPost(t, INVITATIONS, { email, role });
  assert.equal(response.status, 201, response.text);
  return linkToken(response.body.data.url as string);
}

export interface TestOperator {
  id: string;
  email: string;
  name: string;
  role: 'admin' | 'reviewer';
  password: string;
  secret: string;
  recoveryCodes: string[];
  /** The session the set-up opened. */
  session: ConsoleSession;
}

/** What a link is for (its token in the body). */
export const lookupInvitation = (t: Pick<TestApp, 'api'>, token: string) =>
  t.api.post(INVITATION_LOOKUP, { token });

/** Step one of a set-up, as sent: name and password, or a reset operator's own password. */
export const enrol = (t: Pick<TestApp, 'api'>, token: string, body: Record<string, unknown>) =>
  t.api.post(INVITATION_SECOND_FACTOR, { token, ...body });

/** Step two, as sent: a code for the link. */
export const acceptCode = (t: Pick<TestApp, 'api'>, token: string, code: string) =>
  t.api.post(INVITATION_ACCEPT, { token, code });

/** Step one of a set-up that must succeed: answers the TOTP secret. */
export async function startEnrolment(
  t: Pick<TestApp, 'api'>,
  token: string,
  body: Record<string, unknown>,
): Promise<string> {
  const response = await enrol(t, token, body);
  assert.equal(response.status, 200, response.text);
  return response.body.data.secret as string;
}

/** Step two: the authenticator's current code. */
export const accept = (t: Pick<TestApp, 'api' | 'clock'>, token: string, secret: string) =>
  acceptCode(t, token, totp(secret, t.clock.now()));

/** An operator invited, set up and signed in, all over HTTP. */
export async function newOperator(
  t: Pick<TestApp, 'api' | 'clock' | 'url' | 'env'>,
  role: 'admin' | 'reviewer',
  options: { by?: ConsoleSession; email?: string } = {},
): Promise<TestOperator> {
  const email = options.email ?? uniqueEmail(role);
  const token = await invite(t, email, role, options.by);
  const password = randomPassword();
  const name = `Operator ${role}`;
  const secret = await startEnrolment(t, token, { name, password, password_confirmation: password });
  const accepted = await accept(t, token, secret);
  assert.equal(accepted.status, 201, accepted.text);
  return {
    id: accepted.body.data.operator.id as string,
    email,
    name,
    role,
    password,
    secret,
    recoveryCodes: accepted.body.data.recovery_codes as string[],
    session: sessionFrom(t, accepted),
  };
}

/**
 * Moves the app's clock to the next 30-second step: a TOTP code is accepted once, so each sign-in
 * of the same operator needs a step of its own, as a person waits for the app's next code.
 */
export const nextStep = (t: Pick<TestApp, 'clock'>): void => nextTotpStep(t.clock);

/** Step one of a sign-in: answers the challenge. */
export async function passwordStep(
  t: Pick<TestApp, 'api'>,
  operator: Pick<TestOperator, 'email' | 'password'>,
): Promise<string> {
  const response = await t.api.post(SESSION_PASSWORD, { email: operator.email, password: operator.password });
  assert.equal(response.status, 200, response.text);
  return response.body.data.challenge as string;
}

/** A full sign-in (password, then the authenticator's code of a fresh step): the new session. */
export async function signInOperator(
  t: Pick<TestApp, 'api' | 'clock' | 'url' | 'env'>,
  operator: Pick<TestOperator, 'email' | 'password' | 'secret'>,
): Promise<ConsoleSession> {
  nextStep(t);
  const challenge = await passwordStep(t, operator);
  const response = await t.api.post(SESSION_SECOND_FACTOR, {
    challenge,
    code: totp(operator.secret, t.clock.now()),
  });
  assert.equal(response.status, 200, response.text);
  return sessionFrom(t, response);
}

export interface AuditItem {
  id: string;
  company_id: number | null;
  company_name: string | null;
  actor: { type: string; id: string | null; name: string | null; email: string | null };
  action: string;
  target: { type: string; id: string | null } | null;
  metadata: Record<string, unknown> | null;
  request_id: string | null;
  ip: string | null;
  created_at: string;
}

/** GET /admin/audit-events with these filters (ADMIN_API_KEY), newest first, one page of 100. */
export async function auditEvents(
  t: Pick<TestApp, 'api'>,
  filters: Record<string, string | number>,
): Promise<AuditItem[]> {
  const query = new URLSearchParams({ limit: '100' });
  for (const [name, value] of Object.entries(filters)) query.set(name, String(value));
  const response = await adminGet(t, `${AUDIT_EVENTS}?${query}`);
  assert.equal(response.status, 200, response.text);
  return response.body.data.items as AuditItem[];
}

/** The operators list (ADMIN_API_KEY). */
export async function operatorsList(t: Pick<TestApp, 'api'>) {
  return listAll(t, OPERATORS, adminHeaders);
}

/** The current documents awaiting review of a partner, by type. */
export async function pendingDocuments(t: Pick<TestApp, 'api'>, companyId: number): Promise<AdminDocument[]> {
  const record = await partnerRecord(t, companyId);
  return (record.documents as AdminDocument[]).filter(
    (document) => document.current && document.status === 'pending_review',
  );
}
