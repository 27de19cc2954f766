import { Ajv, type ValidateFunction } from 'ajv';
import { FORMATS, PUBLISHED_ERROR_CODES } from './contract.js';
import type { JsonSchema, Operation } from './openapi.js';

/** The kinds of finding the harness reports; each may be allow-listed by known-issues.ts. */
export type CheckKind =
  | 'server-error'
  | 'transport'
  | 'envelope'
  | 'error-code'
  | 'request-id'
  | 'undocumented-status'
  | 'response-schema'
  | 'accepted-invalid'
  | 'wrong-rejection'
  | 'valid-credential-refused'
  | 'persisted'
  | 'mass-assignment'
  | 'round-trip'
  | 'cross-tenant'
  | 'prototype-pollution'
  | 'secret-leak'
  | 'pagination';

export interface Violation {
  check: CheckKind;
  message: string;
  /** Structured facts for allow-list predicates. */
  details?: Record<string, unknown>;
}

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  json: unknown;
  isJson: boolean;
  contentType: string;
}

const ajv = new Ajv({ strict: false, allowUnionTypes: true, allErrors: true, validateFormats: true });
for (const [name, validate] of Object.entries(FORMATS)) ajv.addFormat(name, { type: 'string', validate });

const validators = new Map<string, ValidateFunction>();

/** The ajv validator of an operation's documented response for a status (compiled once). */
export function responseValidator(op: Operation, status: number): ValidateFunction | undefined {
  const spec = op.responses.get(status);
  if (!spec?.schema) return undefined;
  const key = `${op.operationId} ${status}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(spec.schema as JsonSchema);
    validators.set(key, validate);
  }
  return validate;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** True for a documented binary (file) response, which is not an envelope. */
export const isBinaryResponse = (op: Operation, status: number): boolean =>
  op.responses.get(status)?.schema?.['format'] === 'binary';

/**
 * Never a 5xx; always the envelope; documented statuses and schemas (docs/partner-guide.md,
 * "Responses and errors").
 */
export function checkResponse(op: Operation, result: HttpResult): Violation[] {
  const violations: Violation[] = [];
  const { status } = result;
  if (status >= 500) violations.push({ check: 'server-error', message: `HTTP ${status}` });
  if (!result.headers.get('x-request-id')) {
    violations.push({ check: 'request-id', message: 'no X-Request-Id header' });
  }
  const binary = status >= 200 && status < 300 && isBinaryResponse(op, status);
  if (binary) {
    if (/json/i.test(result.contentType)) {
      violations.push({ check: 'envelope', message: `file download answered ${result.contentType}` });
    }
    const documentedTypes = op.responses.get(status)?.contentTypes ?? [];
    const documented = documentedTypes.join(', ');
    const served = result.contentType.split(';')[0]!.trim().toLowerCase();
    const matches = (type: string) =>
      type.toLowerCase() === served ||
      type === '*/*' ||
      (type.endsWith('/*') && served.startsWith(type.slice(0, -1)));
    if (!documentedTypes.some(matches)) {
      violations.push({
        check: 'response-schema',
        message: `the file is served as ${served} but documented as ${documented || 'nothing'}`,
        details: { documented, served },
      });
    }
  } else {
    violations.push(...checkEnvelope(result));
  }
  if (!op.responses.has(status)) {
    violations.push({
      check: 'undocumented-status',
      message: `status ${status} is not among the documented responses (${[...op.responses.keys()].join(', ')})`,
    });
  } else if (!binary && result.isJson) {
    const validate = responseValidator(op, status);
    if (validate && !validate(result.json)) {
      violations.push({
        check: status < 300 ? 'response-schema' : 'undocumented-status',
        message: `body does not match the documented ${status} schema: ${ajv.errorsText(validate.errors, { separator: '; ' })}`,
      });
    }
  }
  // RATE_LIMITED comes with Retry-After (docs/partner-guide.md, "Authentication"); OTP_ATTEMPTS_EXCEEDED
  // asks for a resend instead ("Your account").
  const code =
    typeof result.json === 'object' && result.json !== null
      ? (result.json as Record<string, unknown>)['error_code']
      : undefined;
  if (
    status === 429 &&
    code === 'RATE_LIMITED' &&
    !/^[0-9]+$/.test(result.headers.get('retry-after') ?? '')
  ) {
    violations.push({
      check: 'envelope',
      message: '429 RATE_LIMITED without a Retry-After of whole seconds',
    });
  }
  return violations;
}

export function checkEnvelope(result: HttpResult): Violation[] {
  const violations: Violation[] = [];
  const envelope = (message: string) => violations.push({ check: 'envelope', message });
  if (!/^application\/json\b/i.test(result.contentType))
    envelope(`Content-Type is ${result.contentType || 'absent'}`);
  if (!result.isJson || !isRecord(result.json)) {
    envelope(`body is not a JSON object: ${result.text.slice(0, 200)}`);
    return violations;
  }
  const body = result.json;
  const ok = result.status >= 200 && result.status < 300;
  if (body['status'] !== (ok ? 'success' : 'error')) {
    envelope(`status field is ${JSON.stringify(body['status'])} on HTTP ${result.status}`);
  }
  if (typeof body['message'] !== 'string' || body['message'] === '')
    envelope('message is not a non-empty string');
  const extra = Object.keys(body).filter(
    (key) => !['status', 'message', 'data', 'error_code', 'errors'].includes(key),
  );
  if (extra.length > 0) envelope(`fields outside the envelope: ${extra.join(', ')}`);
  if (ok) {
    if ('error_code' in body) envelope('a success carries error_code');
  } else {
    const code = body['error_code'];
    if (typeof code !== 'string' || !(code in PUBLISHED_ERROR_CODES)) {
      violations.push({
        check: 'error-code',
        message: `error_code ${JSON.stringify(code)} is not in the published error table`,
      });
    } else if (PUBLISHED_ERROR_CODES[code] !== result.status) {
      violations.push({
        check: 'error-code',
        message: `error_code ${code} belongs to HTTP ${PUBLISHED_ERROR_CODES[code]}, sent with ${result.status}`,
      });
    }
    if (result.status === 422 && !isRecord(body['errors'])) {
      violations.push({ check: 'envelope', message: `422 ${String(code)} without an errors object` });
    }
  }
  if ('errors' in body) {
    const errors = body['errors'];
    if (
      !isRecord(errors) ||
      !Object.values(errors).every(
        (messages) => Array.isArray(messages) && messages.every((message) => typeof message === 'string'),
      )
    ) {
      envelope('errors is not an object of string arrays');
    }
  }
  return violations;
}

/** Names of the Object.prototype at start-up: a request must never add to them. */
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype).sort().join(',');

export function checkPrototype(): Violation[] {
  const names = Object.getOwnPropertyNames(Object.prototype).sort().join(',');
  const probe = {} as Record<string, unknown>;
  if (names !== PROTOTYPE_NAMES || probe['polluted'] !== undefined || probe['isAdmin'] !== undefined) {
    return [{ check: 'prototype-pollution', message: `Object.prototype changed: ${names}` }];
  }
  return [];
}

/** Walks every object in a value. */
export function* objectsIn(value: unknown, depth = 0): Generator<Record<string, unknown>> {
  if (depth > 6) return;
  if (Array.isArray(value)) {
    for (const item of value) yield* objectsIn(item, depth + 1);
  } else if (isRecord(value)) {
    yield value;
    for (const item of Object.values(value)) yield* objectsIn(item, depth + 1);
  }
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Unknown body fields are ignored, never mass-assigned (docs/partner-guide.md, "Responses and errors"). */
export function checkMassAssignment(
  data: unknown,
  extras: ReadonlyArray<readonly [string, unknown]>,
): Violation[] {
  const violations: Violation[] = [];
  for (const [name, value] of extras) {
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && !isRecord(value)) continue;
    // `verified: true` and the like occur naturally; only distinctive values prove an assignment.
    if (typeof value === 'boolean') continue;
    for (const object of objectsIn(data)) {
      if (Object.hasOwn(object, name) && sameJson(object[name], value)) {
        violations.push({
          check: 'mass-assignment',
          message: `unknown body field ${name}=${JSON.stringify(value)} shows up in the response`,
        });
      }
    }
  }
  return violations;
}

/**
 * Passwords, OTPs and credentials never come back; BVNs only masked: docs/partner-guide.md,
 * "Your account", "Onboarding: profile, representative, documents", "API keys and team members".
 * Checks the raw response text for the secrets the request carried and for the world's credentials.
 */
export function checkSecrets(text: string, secrets: ReadonlyArray<readonly [string, string]>): Violation[] {
  const violations: Violation[] = [];
  for (const [name, secret] of secrets) {
    if (secret.length >= 6 && text.includes(secret)) {
      violations.push({ check: 'secret-leak', message: `the response contains ${name}` });
    }
  }
  return violations;
}

/**
 * A page holds at most `limit` items (default 20) and a string or null next_cursor
 * (docs/partner-guide.md, "Pagination").
 */
export function checkPage(data: unknown, limit: number): Violation[] {
  if (typeof data !== 'object' || data === null || !Array.isArray((data as Record<string, unknown>)['items']))
    return [];
  const page = data as { items: unknown[]; next_cursor?: unknown };
  const violations: Violation[] = [];
  if (page.items.length > limit) {
    violations.push({ check: 'pagination', message: `${page.items.length} items for limit ${limit}` });
  }
  if (!(page.next_cursor === null || typeof page.next_cursor === 'string')) {
    violations.push({ check: 'pagination', message: `next_cursor is ${JSON.stringify(page.next_cursor)}` });
  }
  return violations;
}
