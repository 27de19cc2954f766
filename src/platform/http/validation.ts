import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import { AppError, addFieldError, type FieldErrors } from '../errors/errors.js';
import { extend } from '../objects.js';
import { isE164, toE164 } from '../phone.js';
import {
  BIDI_CONTROL,
  CONTROL,
  CONTROL_BUT_LINE_BREAK,
  LONE_SURROGATE,
  sanitizeForeignText,
} from '../text.js';

type JsonSchema = Record<string, unknown>;

/**
 * An e-mail address: a dot-atom local part (RFC 5322: no leading, trailing or doubled dot) and a
 * domain of at least two labels. It is the `email` format's own grammar, so a stored address always
 * passes the format checks of the response serializer as well.
 */
const EMAIL =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export function isRealDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function isUrl(value: string, protocols: readonly string[]): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (
    protocols.includes(url.protocol) && url.hostname !== '' && url.username === '' && url.password === ''
  );
}

function createAjv(coerceTypes: boolean, removeAdditional: 'all' | false = 'all'): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes,
    removeAdditional,
    useDefaults: true,
    verbose: true,
    strict: false,
    allowUnionTypes: true,
  });
  ajv.addFormat('email', { type: 'string', validate: (value: string) => EMAIL.test(value) });
  ajv.addFormat('date', { type: 'string', validate: isRealDate });
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (value: string) => !Number.isNaN(Date.parse(value)),
  });
  ajv.addFormat('url', { type: 'string', validate: (value: string) => isUrl(value, ['https:', 'http:']) });
  ajv.addFormat('https-url', { type: 'string', validate: (value: string) => isUrl(value, ['https:']) });
  ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  ajv.addFormat('phone', { type: 'string', validate: isE164 });
  ajv.addFormat('binary', true);
  return ajv;
}

type Copy = (data: unknown) => unknown;

/**
 * A function that copies what `schema` lists of a value: an object's listed properties, an array's
 * items, each by its own schema; any other value (a primitive, or an object the schema says nothing
 * of) is structured-cloned, for ajv to prune. Made once per schema (the properties walked are known
 * in advance); it costs a tenth of cloning the whole value.
 */
function listedCopier(schema: JsonSchema): Copy {
  const properties = schema['properties'] as Record<string, JsonSchema> | undefined;
  const items = schema['items'] as JsonSchema | undefined;
  const copyItem = items ? listedCopier(items) : undefined;
  const fields = Object.entries(properties ?? {}).map(
    ([key, property]) => [key, listedCopier(property)] as const,
  );
  return (data) => {
    if (typeof data !== 'object' || data === null) return data;
    if (Array.isArray(data)) return copyItem ? data.map(copyItem) : structuredClone(data);
    if (!properties || data instanceof Date || Buffer.isBuffer(data)) return structuredClone(data);
    const record = data as Record<string, unknown>;
    const copy: Record<string, unknown> = {};
    for (const [key, copyField] of fields) {
      if (Object.hasOwn(record, key)) copy[key] = copyField(record[key]);
    }
    return copy;
  };
}

/**
 * A serializer by schema for data the service sends (webhook payloads): drops every property the
 * schema does not list, and throws if what remains does not match it, so a payload cannot drift
 * from its documentation.
 */
export function compileSerializer(schema: object): (data: unknown) => string {
  const validate = strictAjv.compile(schema);
  const copyListed = listedCopier(schema as JsonSchema);
  return (data) => {
    const copy = copyListed(data);
    if (!validate(copy)) {
      throw new Error(`payload does not match its schema: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
    }
    return JSON.stringify(copy);
  };
}

/** Bodies are taken as sent (a number is not a string); query and path values arrive as text. */
const strictAjv = createAjv(false);
const coercingAjv = createAjv(true);
/** Headers are validated in place on request.headers: nothing may be stripped from them. */
const headersAjv = createAjv(true, false);

const FORMAT_MESSAGES: Record<string, string> = {
  email: 'must be a valid e-mail address',
  date: 'must be a real calendar date in YYYY-MM-DD format',
  'date-time': 'must be an ISO-8601 date-time',
  url: 'must be an http(s) URL',
  'https-url': 'must be an https URL',
  uuid: 'must be a valid identifier',
  phone:
    'must be a phone number: a Nigerian one (0803 123 4567, +234 803 123 4567) or another ' +
    "country's with + and its country code (+44 20 7946 0958)",
};

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
};

function messageFor(error: ErrorObject): string {
  const parent = (error.parentSchema ?? {}) as JsonSchema;
  const custom = typeof parent['errorMessage'] === 'string' ? parent['errorMessage'] : undefined;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'type': {
      const types = String(params['type']).split(',');
      return `must be ${types.map((type) => TYPE_NAMES[type] ?? type).join(' or ')}`;
    }
    case 'minLength':
      return params['limit'] === 1
        ? 'is required'
        : (custom ?? `must be at least ${params['limit']} characters`);
    case 'maxLength':
      return `must be at most ${params['limit']} characters`;
    case 'enum':
      return `must be one of: ${(params['allowedValues'] as unknown[]).join(', ')}`;
    case 'format':
      return custom ?? FORMAT_MESSAGES[String(params['format'])] ?? 'has an invalid format';
    case 'pattern':
      return custom ?? 'has an invalid format';
    case 'minimum':
      return custom ?? `must be at least ${params['limit']}`;
    case 'maximum':
      return custom ?? `must be at most ${params['limit']}`;
    case 'exclusiveMinimum':
      return custom ?? `must be greater than ${params['limit']}`;
    case 'const':
      return `must be ${JSON.stringify(params['allowedValue'])}`;
    case 'minProperties':
      return custom ?? `must have at least ${params['limit']} field(s)`;
    default:
      return custom ?? error.message ?? 'is invalid';
  }
}

function fieldOf(error: ErrorObject, rootName: string): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required')
    path.push(String((error.params as { missingProperty: string }).missingProperty));
  return path.length > 0 ? path.join('.') : rootName;
}

export function toFieldErrors(errors: readonly ErrorObject[], rootName = 'body'): FieldErrors {
  const result: FieldErrors = {};
  for (const error of errors) {
    addFieldError(result, fieldOf(error, rootName), messageFor(error));
  }
  return result;
}

/** Half of a UTF-16 surrogate pair on its own: not text, and stored altered by either database. */

/** What is wrong with a text value (already trimmed) for its schema, if anything. */
function textProblem(text: string, schema: JsonSchema): string | undefined {
  if (BIDI_CONTROL.test(text)) {
    return 'must not contain Unicode bidirectional control characters (U+202A-U+202E, U+2066-U+2069)';
  }
  if (schema['x-multiline'] === true) {
    if (CONTROL_BUT_LINE_BREAK.test(text))
      return 'must not contain control characters other than line breaks';
  } else if (CONTROL.test(text)) {
    return 'must not contain control characters (tabs, line breaks and the like)';
  }
  return undefined;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);

/**
 * Applies the input rules of docs/partner-guide.md, "Responses and errors", before validation: fields
 * the schema does not list are dropped (never assigned; ajv would drop them too, but only after
 * counting them against `minProperties`, so a body of unknown fields alone passed as a change),
 * strings are trimmed (a string that is blank after trimming is absent), e-mails are lower-cased and
 * phone numbers written in E.164 (normalizedText), NUL
 * characters are refused (PostgreSQL cannot store them), so are bidirectional controls and control
 * characters (textProblem), and file parts are accepted only where the schema has `format: binary`.
 * Path values (`trim` false) are identifiers and are taken as sent: ` 0123456789` names no account. A
 * string the schema takes exactly as sent (`x-trim: false`: passwords, never shown to anyone) is
 * neither trimmed nor checked by textProblem. Text another system wrote (`x-foreign-text`: a bank's
 * narration) is cleaned instead of refused (sanitizeForeignText), cut to the length the mark gives.
 */
function normalize(
  schema: JsonSchema,
  data: Record<string, unknown>,
  path: string,
  errors: FieldErrors,
  trim = true,
): void {
  const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
  const listedOnly = schema['properties'] !== undefined && schema['patternProperties'] === undefined;
  for (const key of Object.keys(data)) {
    const value = data[key];
    const field = path ? `${path}.${key}` : key;
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (property === undefined) {
      if (listedOnly) delete data[key];
      continue;
    }
    if (property['format'] === 'binary') {
      if (!Buffer.isBuffer(value)) addFieldError(errors, field, 'must be a file');
      continue;
    }
    if (Buffer.isBuffer(value)) {
      addFieldError(errors, field, 'must be a text field, not a file');
      continue;
    }
    if (typeof value === 'string' && typeof property['x-foreign-text'] === 'number') {
      const clean = sanitizeForeignText(value, property['x-foreign-text']);
      if (clean === '') delete data[key];
      else data[key] = clean;
    } else if (typeof value === 'string') {
      if (value.includes('\u0000')) {
        addFieldError(errors, field, 'must not contain NUL characters');
        continue;
      }
      if (LONE_SURROGATE.test(value)) {
        addFieldError(errors, field, 'must be valid Unicode text');
        continue;
      }
      const asSent = property['x-trim'] === false;
      const trimmed = !trim || asSent ? value : value.trim();
      const problem = asSent ? undefined : textProblem(trimmed, property);
      if (problem) addFieldError(errors, field, problem);
      // Blank text is an absent text field; for an object or a list it is the wrong type (ajv says so).
      else if (trimmed.trim() === '' && !STRUCTURED.has(property['type'] as string)) delete data[key];
      else data[key] = normalizedText(trimmed, property);
    } else if (isPlainObject(value)) {
      normalize(property, value, field, errors, trim);
    }
  }
}

/**
 * E-mails are lower-cased; phone numbers written within the schema's length are put in E.164, and
 * any other value is left for the `phone` format (or maxLength) to refuse, naming the field.
 */
function normalizedText(text: string, schema: JsonSchema): string {
  if (schema['format'] === 'email') return text.toLowerCase();
  if (schema['format'] === 'phone') {
    const maxLength = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : Infinity;
    return ([...text].length <= maxLength && toE164(text)) || text;
  }
  return text;
}

/** Types whose value is never text: a blank string there is not an absent field but a wrong one. */
const STRUCTURED: ReadonlySet<string> = new Set(['object', 'array']);

/** Plain decimal digits without a leading zero (`0` itself aside): one spelling per number. */
const DECIMAL_DIGITS = /^(?:0|[1-9][0-9]*)$/;

const isIntegerSchema = (schema: JsonSchema | undefined): boolean => {
  const type = schema?.['type'];
  return type === 'integer' || (Array.isArray(type) && type.includes('integer') && !type.includes('string'));
};

/**
 * Path and query values arrive as text and ajv coerces them with Number(), which also reads `0x2`,
 * `2e0`, `2.0`, ` 2`, `+2` and `02` as 2. An integer is written in plain decimal digits without a
 * leading zero, checked on the text as sent (before trimming), so each resource has one spelling. A
 * blank value is left to normalize(), which treats it as absent like any blank value.
 */
function checkIntegerText(schema: JsonSchema, data: Record<string, unknown>, errors: FieldErrors): void {
  const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
  for (const key of Object.keys(data)) {
    const value = data[key];
    if (!Object.hasOwn(properties, key) || !isIntegerSchema(properties[key])) continue;
    if (typeof value === 'string' && value.trim() !== '' && !DECIMAL_DIGITS.test(value)) {
      addFieldError(errors, key, 'must be a whole number written in digits, without leading zeros');
    }
  }
}

/** The ajv-compiled copy of a schema sees file parts as "anything"; normalize() checks them. */
function withoutBinary(schema: JsonSchema): JsonSchema {
  const properties = schema['properties'] as Record<string, JsonSchema> | undefined;
  if (!properties) return schema;
  const copy: Record<string, JsonSchema> = {};
  for (const [key, property] of Object.entries(properties)) {
    copy[key] =
      property['format'] === 'binary' ? { description: property['description'] } : withoutBinary(property);
  }
  return extend(schema, { properties: copy });
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; errors: FieldErrors };

export type BodyValidator<T = Record<string, unknown>> = (data: unknown) => ValidationResult<T>;

const bodyValidators = new WeakMap<object, BodyValidator<unknown>>();

/** Validator for a JSON or multipart body; absent bodies are checked as `{}` so each missing field is named. */
export function bodyValidator<T = Record<string, unknown>>(schema: object): BodyValidator<T> {
  const cached = bodyValidators.get(schema);
  if (cached) return cached as BodyValidator<T>;
  const jsonSchema = schema as JsonSchema;
  const validate: ValidateFunction = strictAjv.compile(withoutBinary(jsonSchema));
  const validator: BodyValidator<unknown> = (data) => {
    const value = data === null || data === undefined ? {} : data;
    const errors: FieldErrors = {};
    if (isPlainObject(value)) normalize(jsonSchema, value, '', errors);
    const valid = validate(value);
    if (!valid) {
      for (const [field, messages] of Object.entries(toFieldErrors(validate.errors ?? []))) {
        for (const message of messages) addFieldError(errors, field, message);
      }
    }
    if (Object.keys(errors).length > 0) return { ok: false, errors };
    return { ok: true, value };
  };
  bodyValidators.set(schema, validator);
  return validator as BodyValidator<T>;
}

/**
 * Fastify's validator compiler. Body and query failures are 422 VALIDATION_FAILED naming each field;
 * a path parameter that cannot be an identifier names no resource, so it is 404 NOT_FOUND.
 */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  if (httpPart === 'body') {
    const validate = bodyValidator(schema);
    return (data: unknown) => {
      const result = validate(data);
      if (result.ok) return { value: result.value };
      return { error: new AppError('VALIDATION_FAILED', { errors: result.errors }) };
    };
  }
  const validate = (httpPart === 'headers' ? headersAjv : coercingAjv).compile(schema);
  return (data: unknown) => {
    const value = (data ?? {}) as Record<string, unknown>;
    const errors: FieldErrors = {};
    if (httpPart !== 'headers' && isPlainObject(value)) {
      checkIntegerText(schema as JsonSchema, value, errors);
      normalize(schema as JsonSchema, value, '', errors, httpPart !== 'params');
    }
    if (validate(value) && Object.keys(errors).length === 0) return { value };
    if (httpPart === 'params') return { error: new AppError('NOT_FOUND') };
    for (const [field, messages] of Object.entries(
      toFieldErrors(validate.errors ?? [], httpPart ?? 'request'),
    )) {
      for (const message of messages) addFieldError(errors, field, message);
    }
    return { error: new AppError('VALIDATION_FAILED', { errors }) };
  };
};
