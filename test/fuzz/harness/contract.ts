/**
 * The published API rules (docs/partner-guide.md, docs/operator-guide.md), written out independently
 * of src/ so the fuzzer judges the server against what is published rather than against its own tables.
 */

/**
 * Every error_code a client may see, with its one HTTP status: docs/partner-guide.md,
 * "Responses and errors" and the sections it refers to; docs/operator-guide.md.
 */
export const PUBLISHED_ERROR_CODES: Readonly<Record<string, number>> = {
  MALFORMED_REQUEST: 400,
  UNAUTHENTICATED: 401,
  TOKEN_EXPIRED: 401,
  INVALID_CREDENTIALS: 401,
  ACCOUNT_NOT_VERIFIED: 403,
  ONBOARDING_NOT_APPROVED: 403,
  FORBIDDEN: 403,
  SANDBOX_ONLY: 403,
  SIGNATURE_INVALID: 401,
  PARTNER_SUSPENDED: 403,
  CSRF_REJECTED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  ACCOUNT_ALREADY_VERIFIED: 409,
  REPRESENTATIVE_REQUIRED: 409,
  BVN_IMMUTABLE: 409,
  ONBOARDING_INCOMPLETE: 409,
  ONBOARDING_LOCKED: 409,
  VIRTUAL_ACCOUNT_EXISTS: 409,
  IDEMPOTENCY_IN_PROGRESS: 409,
  ACCOUNT_INACTIVE: 409,
  ACCOUNT_CLOSED: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_FAILED: 422,
  OTP_INVALID: 422,
  OTP_EXPIRED: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  OTP_ATTEMPTS_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  // The operator console's own, for its sign-in and set-up steps (docs/decisions.md, "Operators").
  SETUP_NOT_STARTED: 409,
  SIGN_IN_EXPIRED: 422,
  // A claim on a partner another operator works on (docs/operator-guide.md, "Assignment").
  ALREADY_ASSIGNED: 409,
  // Four eyes: a decision already proposed, or a proposal already settled (docs/operator-guide.md, "Four eyes").
  PROPOSAL_PENDING: 409,
  PROPOSAL_SETTLED: 409,
  // docs/partner-guide.md, "Dashboard users and roles" and "Second factor"
  LAST_OWNER: 409,
  USER_EXISTS: 409,
  INVITATION_NOT_PENDING: 409,
  SECOND_FACTOR_REQUIRED: 403,
  SECOND_FACTOR_ENFORCED: 409,
  SECOND_FACTOR_ENROLLED: 409,
};

/**
 * POST endpoints under /services/ honour Idempotency-Key, 1-255 chars (docs/partner-guide.md,
 * "Authentication").
 */
export const IDEMPOTENCY_KEY_MAX = 255;
export const isIdempotentOperation = (method: string, path: string): boolean =>
  method === 'POST' && path.includes('/services/');

/**
 * JSON bodies over 100 KiB are 413; files over 5 MiB are 413: docs/partner-guide.md,
 * "Responses and errors".
 */
export const JSON_BODY_LIMIT = 100 * 1024;
export const FILE_LIMIT = 5 * 1024 * 1024;

/** The session token (sandbox), API key and admin key schemes of the generated document. */
export type SchemeName = 'sessionToken' | 'apiKey' | 'adminKey';

/** RFC 5322 dot-atom local part (no leading, trailing or doubled dot), a domain of two labels or more. */
const EMAIL =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export const isEmail = (value: string): boolean => value.length <= 254 && EMAIL.test(value);

export function isRealDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** ISO-8601 date-time with an explicit offset (the documents' `format: date-time`). */
export const isIsoDateTime = (value: string): boolean =>
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/.test(value) &&
  !Number.isNaN(Date.parse(value));

export function isUrl(value: string, protocols: readonly string[]): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (
    protocols.includes(url.protocol) && url.hostname !== '' && url.username === '' && url.password === ''
  );
}

export const isUuid = (value: string): boolean =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);

/**
 * A phone number in E.164, as docs/decisions.md ("Phone numbers") reads one: spaces, dashes and
 * parentheses ignored; a Nigerian number (0, 234, +234 or 00234, an optional trunk 0 after the
 * country code, then a 10-digit mobile number outside 0700/0800/0900 or a 020x geographic one);
 * any other country's with + or 00, 8-15 digits in all. Null when it is none of these.
 */
export function phoneInE164(value: string): string | null {
  const digits = value.trim().replace(/[ ()-]/g, '');
  const nigerian = /^(?:0|(?:\+|00)?2340?)((?:7[0-2]|8[01]|9[01])\d{8}|20[1-9]\d{7})$/.exec(digits);
  if (nigerian) return /^[789]00/.test(nigerian[1]!) ? null : `+234${nigerian[1]}`;
  const other = /^(?:\+|00)([1-9]\d{7,14})$/.exec(digits);
  if (other && !other[1]!.startsWith('234')) return `+${other[1]}`;
  return null;
}

/** Format checks used both to filter generated values and to validate responses. */
export const FORMATS: Record<string, (value: string) => boolean> = {
  email: isEmail,
  date: isRealDate,
  'date-time': isIsoDateTime,
  uuid: isUuid,
  url: (value) => isUrl(value, ['https:', 'http:']),
  'https-url': (value) => isUrl(value, ['https:']),
  phone: (value) => phoneInE164(value) !== null,
  binary: () => true,
};
