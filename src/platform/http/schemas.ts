import { type SchemaOptions, type Static, type TSchema, type TString, Type } from '@sinclair/typebox';
import { ENVIRONMENTS } from '../environment.js';
import { ERROR_REGISTRY, type ErrorCode } from '../errors/errors.js';
import { extend } from '../objects.js';

/** `{type: "string", enum: [...]}`: one clear enum in validation messages and in the OpenAPI document. */
export const StringEnum = <const T extends readonly string[]>(values: T, options: SchemaOptions = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/** `type: [T, "null"]`: valid JSON Schema 2020-12 / OpenAPI 3.1 and fast for fast-json-stringify. */
export const Nullable = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>(
    extend(schema, {
      type: [schema['type'] as string, 'null'],
      ...(Array.isArray(schema['enum']) ? { enum: [...(schema['enum'] as unknown[]), null] } : {}),
    }),
  );

/**
 * Free text (an address, a narration, a reason): like every text field it may not hold a Unicode
 * bidirectional control or a control character, except that line breaks (LF, CRLF) are allowed.
 * `x-multiline` tells the validation platform so (validation.ts normalize) and the API's readers too.
 */
export const FreeText = (options: SchemaOptions = {}) =>
  Type.String(
    extend(options, {
      'x-multiline': true,
      description: [options.description, 'Free text: may hold line breaks.'].filter(Boolean).join(' '),
    }),
  );

/**
 * Text another system wrote (a sponsor bank's narration, a sender's name): kept, but cleaned rather
 * than refused (platform/text.ts sanitizeForeignText) and cut to `maxChars` characters.
 */
export const ForeignText = (maxChars: number, options: SchemaOptions = {}) =>
  Type.String(
    extend(options, {
      'x-foreign-text': maxChars,
      description: [
        options.description,
        `Control and bidirectional characters become spaces; cut to ${maxChars} characters.`,
      ]
        .filter(Boolean)
        .join(' '),
    }),
  );

export const Email = (options: SchemaOptions = {}) =>
  Type.String({
    format: 'email',
    maxLength: 254,
    description: 'E-mail address; trimmed and lower-cased.',
    examples: ['ada@example.com'],
    ...options,
  });

/** A partner's business name, as given at registration (and corrected until the first submission). */
export const BusinessName = (options: SchemaOptions = {}) =>
  Type.String({ maxLength: 191, examples: ['Acme Payments Ltd'], ...options });

/**
 * A phone number: taken as people write it, stored and returned in E.164 (platform/phone.ts toE164,
 * applied by validation.ts normalize; docs/decisions.md, "Phone numbers").
 */
export const Phone = (options: SchemaOptions = {}) =>
  Type.String(
    extend(options, {
      format: 'phone',
      maxLength: 20,
      description: [
        'Phone number, stored and returned in E.164 (`+2348031234567`). A Nigerian number may be written ' +
          'nationally (`0803 123 4567`) or with `234`/`+234`; a number of another country with `+` (or `00`) ' +
          'and its country code (`+44 20 7946 0958`). Spaces, dashes and parentheses are ignored; at most 20 ' +
          'characters as sent.',
        options.description,
      ]
        .filter(Boolean)
        .join(' '),
      examples: options.examples ?? ['0803 123 4567'],
    }),
  );

/** A phone number as stored: E.164 (numbers stored before that rule are converted by a migration). */
export const StoredPhone = () =>
  Type.String({
    description:
      'Phone number in E.164 (`+2348031234567`). A number stored before phone numbers were normalised ' +
      'that could not be read as one is returned as it was given.',
    examples: ['+2348031234567'],
  });

export const Timestamp = (description = 'ISO-8601 UTC timestamp') =>
  Type.String({ format: 'date-time', description, examples: ['2026-11-21T10:00:00.000Z'] });

export const DateOnly = (options: SchemaOptions = {}): TString =>
  Type.String({
    format: 'date',
    description: 'Calendar date, YYYY-MM-DD',
    examples: ['1990-04-12'],
    ...options,
  });

/** The success envelope of a handler's answer (docs/partner-guide.md, "Responses and errors"). */
export const success = <T>(message: string, data: T) => ({ status: 'success' as const, message, data });

/** The success envelope without data (logout, resend-otp…). */
export const successMessage = (message: string) => ({ status: 'success' as const, message });

/** `{status: "success", message, data}`. */
export const Success = <T extends TSchema>(data: T, message = 'OK') =>
  Type.Object(
    {
      status: Type.Literal('success'),
      message: Type.String({ examples: [message] }),
      data,
    },
    { additionalProperties: false },
  );

export const SuccessNoData = (message = 'OK') =>
  Type.Object(
    { status: Type.Literal('success'), message: Type.String({ examples: [message] }) },
    { additionalProperties: false },
  );

const FieldErrorsSchema = Type.Record(Type.String(), Type.Array(Type.String()), {
  description: 'Field name to messages (validation failures and ONBOARDING_INCOMPLETE).',
  examples: [{ email: ['must be a valid e-mail address'] }],
});

export const ErrorEnvelope = (codes: readonly ErrorCode[], data?: TSchema) =>
  Type.Object(
    {
      status: Type.Literal('error'),
      message: Type.String({ examples: [ERROR_REGISTRY[codes[0]!].message] }),
      error_code: StringEnum(codes),
      errors: Type.Optional(FieldErrorsSchema),
      ...(data ? { data: Type.Optional(data) } : {}),
    },
    {
      additionalProperties: false,
      description: codes.map((code) => `${code}: ${ERROR_REGISTRY[code].message}`).join(' | '),
    },
  );

/** Groups error codes by HTTP status into response schemas, for serialization and the OpenAPI document. */
export function errorResponses(
  codes: readonly ErrorCode[],
  dataByCode: Partial<Record<ErrorCode, TSchema>> = {},
): Record<number, TSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_REGISTRY[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, TSchema> = {};
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const data = statusCodes.map((code) => dataByCode[code]).find(Boolean);
    responses[status] = ErrorEnvelope(statusCodes, data);
  }
  return responses;
}

/**
 * A property clients may omit but that validation always fills in from its `default`: optional in
 * the OpenAPI document (not in `required`), present in the handler's type.
 */
export const Defaulted = <T extends TSchema>(schema: T): T => {
  if (schema.default === undefined) throw new Error('Defaulted needs a default');
  return Type.Optional(schema) as unknown as T;
};

export const PaginationQuery = Type.Object({
  limit: Defaulted(
    Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1-100 (default 20).' }),
  ),
  cursor: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'next_cursor of the previous page.' }),
  ),
});
export type PaginationQuery = Static<typeof PaginationQuery>;

/** `{items, next_cursor}`; named `<Item>Page` in the OpenAPI document when the item has a title. */
export const Page = <T extends TSchema>(item: T) =>
  Type.Object(
    {
      items: Type.Array(item),
      next_cursor: Nullable(
        Type.String({ description: 'Pass as ?cursor= for the next page; null on the last page.' }),
      ),
    },
    item.title ? { title: `${item.title}Page` } : {},
  );

/** Counting stops here: a list's `total` above it is reported as this with `total_capped: true`. */
export const TOTAL_CAP = 10_000;

/** A page with the number of items the whole filtered list holds (`total`, counted up to TOTAL_CAP). */
export const CountedPage = <T extends TSchema>(item: T) =>
  Type.Object(
    extend(Page(item).properties, {
      total: Type.Integer({
        minimum: 0,
        description: `How many items the filtered list holds across every page, counted up to ${TOTAL_CAP.toLocaleString('en')}.`,
      }),
      total_capped: Type.Boolean({
        description: `true when the list holds more than ${TOTAL_CAP.toLocaleString('en')} items: total is then ${TOTAL_CAP.toLocaleString('en')}, a lower bound.`,
      }),
    }),
    item.title ? { title: `${item.title}CountedPage` } : {},
  );

/** Creation order of a list: `desc` newest first (the default), `asc` oldest first. */
export const SortOrder = Defaulted(
  StringEnum(['asc', 'desc'] as const, {
    default: 'desc',
    description:
      'By creation: desc, newest first (default), or asc, oldest first. A cursor pages in the order it was issued for.',
  }),
);

export const Environment = StringEnum(ENVIRONMENTS, { description: 'sandbox or live' });

/** An ISO-8601 date (a whole day, UTC) or date-time with a zone. */
export const ISO_DATE_OR_TIME =
  '^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}:[0-9]{2}))?$';

/** Bounds of a `created_at` filter, both inclusive: a date alone means that whole day, UTC. */
export const CreatedRange = {
  created_from: Type.Optional(
    Type.String({
      pattern: ISO_DATE_OR_TIME,
      errorMessage: 'must be an ISO-8601 date (YYYY-MM-DD) or date-time with a zone',
      description: 'Created at or after: an ISO-8601 date (from its start, UTC) or date-time.',
      examples: ['2026-11-01'],
    }),
  ),
  created_to: Type.Optional(
    Type.String({
      pattern: ISO_DATE_OR_TIME,
      errorMessage: 'must be an ISO-8601 date (YYYY-MM-DD) or date-time with a zone',
      description: 'Created at or before: an ISO-8601 date (to its end, UTC) or date-time.',
      examples: ['2026-11-30T23:59:59Z'],
    }),
  ),
};
