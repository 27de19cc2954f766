import fc from 'fast-check';
import { FORMATS } from './contract.js';
import { type BodyKind, isBinary, type JsonSchema, propertiesOf, requiredOf, typesOf } from './openapi.js';
import { BigString, DeepNest, FilePart, RawJson, Repeated, TextAsFile } from './values.js';

/** Strings that have broken servers before: SQL, markup, templates, paths, format strings, NULs. */
export const INJECTION_STRINGS = [
  "' OR 1=1 --",
  "'; DROP TABLE partners; --",
  '" OR ""="',
  "admin'--",
  '1; SELECT pg_sleep(5)',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, on purpose.
  '${7*7}',
  '{{7*7}}',
  '#{7*7}',
  '<%= 7*7 %>',
  '../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  'a\u0000b',
  '\u0000',
  '%00',
  '{"$gt": ""}',
  '$where',
  '%s%s%s%n',
  '\r\nX-Injected: 1',
  '$(id)',
  '`id`',
  '|| ls -la',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-1',
  '1e309',
  '0x10',
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'prototype',
  '\\',
  '"',
  "'",
];

/** Emoji, ZWJ sequences, flags, RTL, bidi overrides, combining marks, lone surrogates, odd spaces. */
export const UNICODE_STRINGS = [
  '😀',
  '👩‍👩‍👧‍👦',
  '🇳🇬',
  'مرحبا بالعالم',
  'שלום',
  '\u202Eevil\u202C',
  'e\u0301\u0302\u0303',
  'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǫ̗',
  '\uD800',
  '\uDFFF',
  'a\uD83Db',
  '\uFEFFbom',
  'zero\u200Bwidth',
  'ßİﬀ',
  '𝕏𝕐ℤ',
  'next\u0085line',
  '日本語テキスト',
  'Ω≈ç√∫',
  'Ａｄａ',
];

/** Characters used to build over-long strings: each is one code point and none is trimmed. */
const LONG_CHARS = ['a', 'Z', '9', '😀', 'ש', '\u0301', '日', '<', "'", 'Ω'];

/** Whitespace String.prototype.trim removes (the server trims the same way). */
const PADDING = [' ', '\t', '\n', '  ', '\u00A0', '\u3000', '\r\n'];

export const codePointLength = (value: string): number => [...value].length;

const matches = (pattern: string, value: string): boolean => new RegExp(pattern, 'u').test(value);

/** The server's view of a text value: trimmed unless the schema says otherwise. */
export const trimmedFor = (schema: JsonSchema, value: string): string =>
  schema['x-trim'] === false ? value : value.trim();

/**
 * A text field holding a bidirectional control (U+202A-U+202E, U+2066-U+2069) or a control character
 * is 422, except a line break (LF, CRLF) in free text (`x-multiline`; docs/decisions.md). Strings taken exactly
 * as sent (`x-trim: false`, passwords) are not text shown to anyone and are exempt.
 */
export function holdsForbiddenControl(schema: JsonSchema, text: string): boolean {
  if (schema['x-trim'] === false) return false;
  if (/[\u202A-\u202E\u2066-\u2069]/.test(text)) return true;
  const withoutBreaks = schema['x-multiline'] === true ? text.replace(/\r?\n/g, '') : text;
  return /\p{Cc}/u.test(withoutBreaks);
}

/** True when the server must take this string for the schema (after trimming), blank excluded. */
export function stringIsValid(schema: JsonSchema, value: string): boolean {
  const text = trimmedFor(schema, value);
  if (text.trim() === '' || text.includes('\u0000')) return false;
  // Half a surrogate pair is not text: the server refuses it (422 "must be valid Unicode text").
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text)) return false;
  if (holdsForbiddenControl(schema, text)) return false;
  const length = codePointLength(text);
  if (typeof schema['minLength'] === 'number' && length < schema['minLength']) return false;
  if (typeof schema['maxLength'] === 'number' && length > schema['maxLength']) return false;
  if (Array.isArray(schema['enum']) && !schema['enum'].includes(text)) return false;
  if (typeof schema['pattern'] === 'string' && !matches(schema['pattern'], text)) return false;
  const format = schema['format'];
  if (typeof format === 'string' && FORMATS[format] && !FORMATS[format](text)) return false;
  return true;
}

const hostileParts = fc.oneof(
  fc.constantFrom(...INJECTION_STRINGS.filter((value) => !value.includes('\u0000'))),
  fc.constantFrom(...UNICODE_STRINGS),
);

/** Arbitrary text for free-text fields: plain, unicode, hostile, and boundary lengths. */
export function textArb(minLength: number, maxLength: number): fc.Arbitrary<string> {
  const max = Math.max(minLength, maxLength);
  const short = Math.min(max, 40);
  return fc
    .oneof(
      { weight: 3, arbitrary: fc.string({ minLength: Math.max(1, minLength), maxLength: short }) },
      {
        weight: 2,
        arbitrary: fc.string({ unit: 'grapheme', minLength: Math.max(1, minLength), maxLength: short }),
      },
      {
        weight: 1,
        arbitrary: fc.string({ unit: 'binary', minLength: Math.max(1, minLength), maxLength: short }),
      },
      {
        weight: 3,
        arbitrary: fc.array(hostileParts, { minLength: 1, maxLength: 3 }).map((parts) => parts.join(' ')),
      },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom(...LONG_CHARS.filter((char) => char !== '\u0301'))
          .map((char) => char.repeat(max)),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom(...LONG_CHARS.slice(0, 3)).map((char) => char.repeat(minLength || 1)),
      },
    )
    .filter((value) => {
      const text = value.trim();
      const length = codePointLength(text);
      return text !== '' && !text.includes('\u0000') && length >= minLength && length <= max;
    });
}

const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,10}[a-z0-9])?$/);

/** https://host/path?query URLs, including odd but parseable paths. */
export function urlArb(protocols: readonly string[] = ['https:'], maxLength = 2048): fc.Arbitrary<string> {
  return fc
    .record({
      protocol: fc.constantFrom(...protocols),
      labels: fc.array(label, { minLength: 1, maxLength: 3 }),
      tld: fc.constantFrom('ng', 'com', 'io', 'example', 'co.uk', 'xn--p1ai'),
      port: fc.option(fc.integer({ min: 1, max: 65535 }), { freq: 5 }),
      path: fc.array(fc.oneof(label, fc.constantFrom('<script>', '%20', '😀', '..', 'a b', "'", 'id.pdf')), {
        maxLength: 4,
      }),
      query: fc.option(fc.constantFrom('?a=1', '?q=%27%20OR%201=1', '?x=<y>', '#frag'), { freq: 4 }),
    })
    .map(
      ({ protocol, labels, tld, port, path, query }) =>
        `${protocol}//${labels.join('.')}.${tld}${port ? `:${port}` : ''}/${path.join('/')}${query ?? ''}`,
    )
    .filter((value) => value.length <= maxLength && FORMATS['url']!(value));
}

/** RFC-shaped e-mail addresses in mixed case (the server must lower-case them). */
export const emailArb = (maxLength = 254): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.oneof(
        { weight: 3, arbitrary: fc.emailAddress() },
        {
          weight: 2,
          arbitrary: fc
            .tuple(
              fc.stringMatching(/^[a-z0-9][a-z0-9._+-]{0,20}$/),
              label,
              fc.constantFrom('ng', 'com', 'io'),
            )
            .map(([local, domain, tld]) => `${local}@${domain}.${tld}`),
        },
      ),
      fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
    )
    .map(([email, upper]) =>
      [...email].map((char, index) => (upper[index % upper.length] ? char.toUpperCase() : char)).join(''),
    )
    .filter((email) => email.length <= maxLength && FORMATS['email']!(email));

const pad = (n: number) => String(n).padStart(2, '0');

/** Real calendar dates, YYYY-MM-DD, between the given years. */
export const dateArb = (minYear = 1900, maxYear = 2100): fc.Arbitrary<string> =>
  fc
    .date({
      min: new Date(Date.UTC(minYear, 0, 1)),
      max: new Date(Date.UTC(maxYear, 11, 31)),
      noInvalidDate: true,
    })
    .map((date) => `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`);

/** A date of birth for someone aged 19-119 today: valid under the 18-120 rule with margin. */
export const adultDobArb = (): fc.Arbitrary<string> => {
  const year = new Date().getUTCFullYear();
  return dateArb(year - 119, year - 19);
};

/** The 10 digits after +234 of a number the API takes: mobile, or 2020-plan geographic. */
const nigerianNumberArb = (): fc.Arbitrary<string> =>
  fc
    .oneof(
      fc.tuple(fc.constantFrom('70', '71', '72', '80', '81', '90', '91'), fc.stringMatching(/^[0-9]{8}$/)),
      fc.tuple(fc.constantFrom('201', '202', '208', '209'), fc.stringMatching(/^[0-9]{7}$/)),
    )
    .map(([prefix, rest]) => `${prefix}${rest}`)
    .filter((number) => !/^[789]00/.test(number));

/**
 * Phone numbers the API takes (docs/decisions.md, "Phone numbers"), as people write them: Nigerian
 * ones nationally or with 234/+234, spaced, dashed or in parentheses, and other countries' with +.
 */
export const phoneArb = (): fc.Arbitrary<string> =>
  fc
    .oneof(
      nigerianNumberArb().chain((number) =>
        fc.constantFrom(
          `0${number}`,
          `+234${number}`,
          `234${number}`,
          `0${number.slice(0, 3)} ${number.slice(3, 6)} ${number.slice(6)}`,
          `(0${number.slice(0, 3)}) ${number.slice(3, 6)}-${number.slice(6)}`,
          `+234 (0)${number.slice(0, 3)} ${number.slice(3)}`,
          `00234${number}`,
        ),
      ),
      fc
        .tuple(fc.constantFrom('1', '44', '233', '27', '971'), fc.integer({ min: 7, max: 12 }))
        .chain(([country, length]) =>
          fc
            .stringMatching(new RegExp(`^[0-9]{${Math.min(length, 15 - country.length)}}$`))
            .map((rest) => `+${country} ${rest}`),
        ),
    )
    .filter((value) => value.length <= 20);

/** Accepted upload types by content, with assorted (even hostile) filenames and part types. */
export const validFileArb = (): fc.Arbitrary<FilePart> =>
  fc
    .record({
      content: fc.constantFrom<'png' | 'pdf' | 'jpeg'>('png', 'pdf', 'jpeg'),
      filename: fc.constantFrom(
        'id.png',
        'scan.pdf',
        'photo.jpg',
        '../../etc/passwd',
        '<script>.pdf',
        '😀.png',
        "o'brien.pdf",
        'no-extension',
        'a'.repeat(200),
      ),
      contentType: fc.constantFrom(
        'image/png',
        'application/pdf',
        'image/jpeg',
        'application/octet-stream',
        'text/html',
      ),
    })
    .map(({ content, filename, contentType }) => new FilePart(content, filename, contentType));

/** Files the server must refuse: wrong content (by bytes), empty; oversized ones are kept rare. */
export const invalidFileArb = (): fc.Arbitrary<FilePart> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .uint8Array({ minLength: 1, maxLength: 64 })
        .map((bytes) => new FilePart('random', 'x.bin', 'application/octet-stream', [...bytes])),
    },
    { weight: 2, arbitrary: fc.constant(new FilePart('empty', 'empty.pdf', 'application/pdf')) },
    { weight: 2, arbitrary: fc.constant(new FilePart('text', 'note.pdf', 'application/pdf')) },
    { weight: 2, arbitrary: fc.constant(new FilePart('svg', 'x.png', 'image/png')) },
    { weight: 1, arbitrary: fc.constant(new FilePart('oversized', 'huge.png', 'image/png')) },
  );

/** A valid value for a schema (strings may come padded with whitespace the server trims). */
export function validValueArb(schema: JsonSchema, bodyKind?: BodyKind): fc.Arbitrary<unknown> {
  if (isBinary(schema)) return validFileArb();
  const types = typesOf(schema);
  if (Array.isArray(schema['enum']) && schema['enum'].length > 0) {
    return padded(schema, fc.constantFrom(...(schema['enum'] as unknown[]))) as fc.Arbitrary<unknown>;
  }
  if (types.includes('string') && (bodyKind === 'multipart' || types.length === 1))
    return validStringArb(schema);
  if (types.length > 1) {
    return fc.oneof(...types.map((type) => validValueArb({ ...schema, type }, bodyKind)));
  }
  switch (types[0]) {
    case 'integer':
      return fc.integer({
        min: typeof schema['minimum'] === 'number' ? schema['minimum'] : -(2 ** 31),
        max: typeof schema['maximum'] === 'number' ? schema['maximum'] : 2 ** 31 - 1,
      });
    case 'number':
      return fc.double({
        min: typeof schema['minimum'] === 'number' ? schema['minimum'] : -1e9,
        max: typeof schema['maximum'] === 'number' ? schema['maximum'] : 1e9,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validValueArb((schema['items'] as JsonSchema | undefined) ?? {}, bodyKind), {
        maxLength: 3,
      });
    case 'object':
      return validObjectArb(schema, bodyKind);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function padded<T>(schema: JsonSchema, arb: fc.Arbitrary<T>): fc.Arbitrary<T | string> {
  if (schema['x-trim'] === false) return arb;
  return fc.oneof(
    { weight: 6, arbitrary: arb },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...PADDING), arb, fc.constantFrom('', ...PADDING))
        .map(([before, value, after]) => (typeof value === 'string' ? `${before}${value}${after}` : value)),
    },
  );
}

export function validStringArb(schema: JsonSchema): fc.Arbitrary<string> {
  const maxLength = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : 200;
  const minLength = typeof schema['minLength'] === 'number' ? schema['minLength'] : 0;
  const format = schema['format'];
  const pattern = schema['pattern'];
  let base: fc.Arbitrary<string>;
  if (Array.isArray(schema['enum']) && schema['enum'].length > 0)
    base = fc.constantFrom(...(schema['enum'] as string[]));
  else if (format === 'email') base = emailArb(maxLength);
  else if (format === 'date') base = dateArb();
  else if (format === 'date-time') base = fc.date({ noInvalidDate: true }).map((date) => date.toISOString());
  else if (format === 'uuid') base = fc.uuid();
  else if (format === 'https-url') base = urlArb(['https:'], maxLength);
  else if (format === 'url') base = urlArb(['https:', 'http:'], maxLength);
  else if (format === 'phone') base = phoneArb();
  else if (typeof pattern === 'string') base = fc.stringMatching(new RegExp(pattern));
  else base = textArb(minLength, maxLength);
  return (padded(schema, base) as fc.Arbitrary<string>).filter((value) => stringIsValid(schema, value));
}

/** Objects with every required property and a random subset of the optional ones. */
export function validObjectArb(
  schema: JsonSchema,
  bodyKind?: BodyKind,
): fc.Arbitrary<Record<string, unknown>> {
  const properties = propertiesOf(schema);
  const required = new Set(requiredOf(schema));
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) {
    const value = validValueArb(property, bodyKind);
    // An optional string sent blank counts as absent, so it stays valid.
    model[name] =
      !required.has(name) && typesOf(property).includes('string') && !isBinary(property)
        ? fc.oneof({ weight: 8, arbitrary: value }, { weight: 1, arbitrary: fc.constantFrom('', '   ') })
        : value;
  }
  return fc.record(model, { requiredKeys: [...required].filter((name) => name in properties) });
}

/** Unknown fields the partner guide says are ignored: mass-assignment bait and prototype keys. */
export const SENTINEL_STRING = 'fuzz-sentinel-7f3a';
export const SENTINEL_NUMBER = 987654321;
const EXTRA_FIELDS: Array<[string, () => fc.Arbitrary<unknown>]> = [
  ['id', () => fc.constant('00000000-0000-4000-8000-00000000f022')],
  ['partner_id', () => fc.constant(SENTINEL_NUMBER)],
  ['company_id', () => fc.constant(SENTINEL_NUMBER)],
  ['onboarding_status', () => fc.constant('active')],
  ['status', () => fc.constant(SENTINEL_STRING)],
  ['balance', () => fc.constant(SENTINEL_NUMBER)],
  ['balance_kobo', () => fc.constant(SENTINEL_NUMBER)],
  ['verified', () => fc.constant(true)],
  ['verified_at', () => fc.constant(SENTINEL_NUMBER)],
  ['created_at', () => fc.constant('1999-01-01T00:00:00.000Z')],
  ['role', () => fc.constant('admin')],
  ['is_admin', () => fc.constant(true)],
  ['key', () => fc.constant(`sk_live_${SENTINEL_STRING}`)],
  ['secret', () => fc.constant(`whsec_${SENTINEL_STRING}`)],
  ['account_number', () => fc.constant('0000000000')],
  ['kyc', () => fc.constant({ ok: true, message: SENTINEL_STRING })],
  ['__proto__', () => fc.constant({ polluted: SENTINEL_STRING, isAdmin: true })],
  ['constructor', () => fc.constant({ prototype: { polluted: SENTINEL_STRING } })],
  ['prototype', () => fc.constant({ polluted: SENTINEL_STRING })],
  ['deep', () => fc.constantFrom(new DeepNest(500, 'array'), new DeepNest(500, 'object'))],
  [
    'huge_number',
    () =>
      fc.constantFrom(
        new RawJson('1e400'),
        new RawJson('-1e400'),
        new RawJson('123456789012345678901234567890'),
      ),
  ],
  ['unicode_😀_key', () => fc.constant(SENTINEL_STRING)],
];

export function extrasArb(
  schema: JsonSchema | undefined,
  avoid: readonly string[] = [],
): fc.Arbitrary<Array<[string, unknown]>> {
  const declared = new Set([...Object.keys(propertiesOf(schema)), ...avoid]);
  const candidates = EXTRA_FIELDS.filter(([name]) => !declared.has(name));
  return fc
    .subarray(candidates, { minLength: 1, maxLength: 4 })
    .chain((chosen) =>
      fc.tuple(...chosen.map(([name, value]) => value().map((item): [string, unknown] => [name, item]))),
    );
}

// ---------------------------------------------------------------------------------------------
// Invalid values

export type MutationKind =
  | 'missing'
  | 'blank'
  | 'wrong-type'
  | 'too-long'
  | 'too-short'
  | 'bad-enum'
  | 'bad-pattern'
  | 'bad-format'
  | 'nul'
  | 'control'
  | 'out-of-range'
  | 'file-for-text'
  | 'text-for-file'
  | 'repeated'
  | 'bad-file'
  | 'business-rule';

export interface Mutation {
  kind: MutationKind;
  /** The field a 422 must name. */
  field: string;
  /** The replacement value; undefined for `missing`. */
  value?: unknown;
  /** Several fields at once (business rules): set these, remove those. */
  patch?: { set?: Record<string, unknown>; remove?: string[] };
}

const wrongTypeValues = (types: string[], bodyKind: BodyKind | undefined): fc.Arbitrary<unknown>[] => {
  const arbs: fc.Arbitrary<unknown>[] = [
    fc.constant(null),
    // Of the right type for a boolean field (the first boolean field in a request body found it).
    ...(types.includes('boolean') ? [] : [fc.boolean()]),
    fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
    fc.constant(null).map(() => Object.fromEntries([['__proto__', { polluted: SENTINEL_STRING }]])),
    fc.constant({ constructor: { prototype: { polluted: SENTINEL_STRING } } }),
    fc.constantFrom(new DeepNest(200, 'array'), new DeepNest(200, 'object'), new DeepNest(20_000, 'array')),
  ];
  if (!types.includes('number') && !types.includes('integer')) {
    arbs.push(
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom(new RawJson('1e400'), new RawJson('-0'), new RawJson('123456789012345678901234567890')),
    );
  }
  if (!types.includes('string')) {
    arbs.push(fc.constantFrom('abc', '12abc', '', ' ', 'NaN', '1e5x', "' OR 1=1 --"));
  }
  if (bodyKind === 'multipart') return [];
  return arbs;
};

const INVALID_FORMAT_SAMPLES: Record<string, string[]> = {
  email: [
    'a@b',
    'a@@b.com',
    'a b@c.com',
    '@x.com',
    'x@.com',
    'x@-x.com',
    'plainaddress',
    'x@x..com',
    '<a@b.com>',
    "' OR 1=1 --@x.com",
    'a@😀.com',
    `${'a'.repeat(250)}@x.com`,
  ],
  date: [
    '2021-02-30',
    '2021-13-01',
    '20210101',
    '2021-1-1',
    '0000-00-00',
    '2021-02-29',
    '2021-04-31',
    '1990-04-12T00:00:00Z',
    '12/04/1990',
    'yesterday',
    '١٩٩٠-٠٤-١٢',
  ],
  'https-url': [
    'http://x.com',
    'ftp://x.com',
    'https://',
    'https://user:pw@x.com',
    'javascript:alert(1)',
    '//x.com/a',
    'https:/x',
    'x.com',
    'file:///etc/passwd',
    'data:text/html,<script>',
  ],
  url: [
    'ftp://x.com',
    'javascript:alert(1)',
    'file:///etc/passwd',
    'http://user:pass@host.com',
    'data:text/html,<script>',
    '//x.com',
    'x.com',
    'gopher://x',
  ],
  uuid: ['not-a-uuid', '00000000-0000-0000-0000-00000000000', "' OR 1=1 --", '../../etc/passwd'],
  phone: [
    '0803 123 456',
    '0803 123 45678',
    '0800 123 4567',
    '8031234567',
    '1234567',
    '+1234567',
    '+1234567890123456',
    '+234 803 123 4567 ext 9',
    '0803.123.4567',
    '(((---)))',
  ],
};

/** Strings outside a string schema: over/under length, bad enum, pattern, format, NUL. */
function invalidStringMutations(field: string, schema: JsonSchema): fc.Arbitrary<Mutation>[] {
  const arbs: fc.Arbitrary<Mutation>[] = [];
  const maxLength = schema['maxLength'];
  const minLength = schema['minLength'];
  if (typeof maxLength === 'number') {
    arbs.push(
      fc
        .constantFrom(...LONG_CHARS)
        .map((char): Mutation => ({ kind: 'too-long', field, value: 'x' + char.repeat(maxLength) })),
    );
  }
  if (typeof minLength === 'number' && minLength > 1) {
    arbs.push(
      fc
        .constantFrom('a', '😀', '9')
        .map((char): Mutation => ({ kind: 'too-short', field, value: char.repeat(minLength - 1) }))
        .filter((mutation) => !stringIsValid(schema, String(mutation.value))),
    );
  }
  const hostile = fc.oneof(
    hostileParts,
    fc.constantFrom(...INJECTION_STRINGS),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }),
  );
  const notBlank = (value: string) => trimmedFor(schema, value).trim() !== '';
  if (Array.isArray(schema['enum'])) {
    const values = schema['enum'].map(String);
    arbs.push(
      fc
        .oneof(
          fc.constantFrom(...values).map((value) => value.toUpperCase()),
          fc.constantFrom(...values).map((value) => `${value}x`),
          fc.constantFrom(...values).map((value) => value.replace(/_/g, ' ')),
          hostile,
        )
        .filter((value) => notBlank(value) && !values.includes(trimmedFor(schema, value)))
        .map((value): Mutation => ({ kind: 'bad-enum', field, value })),
    );
  }
  if (typeof schema['pattern'] === 'string') {
    const pattern = schema['pattern'];
    arbs.push(
      fc
        .oneof(
          hostile,
          fc.stringMatching(new RegExp(pattern)).map((value) => `${value}x`),
          fc.string({ maxLength: 12 }),
        )
        .filter((value) => notBlank(value) && !matches(pattern, trimmedFor(schema, value)))
        .map((value): Mutation => ({ kind: 'bad-pattern', field, value })),
    );
  }
  const format = schema['format'];
  if (typeof format === 'string' && FORMATS[format] && format !== 'binary') {
    arbs.push(
      fc
        .oneof(fc.constantFrom(...(INVALID_FORMAT_SAMPLES[format] ?? ['x'])), hostile)
        .filter((value) => notBlank(value) && !FORMATS[format]!(trimmedFor(schema, value)))
        .map((value): Mutation => ({ kind: 'bad-format', field, value })),
    );
  }
  arbs.push(
    fc
      .tuple(validStringArb(schema), fc.constantFrom('\u0000', '\u0000\u0000', 'x\u0000'))
      .map(
        ([value, nul]): Mutation => ({
          kind: 'nul',
          field,
          value: `${value.slice(0, 3)}${nul}${value.slice(3)}`,
        }),
      )
      .filter(
        (mutation) => codePointLength(String(mutation.value)) <= ((maxLength as number | undefined) ?? 1e9),
      ),
  );
  if (schema['x-trim'] !== false) {
    // A bidi override, isolate or a control character inside the text (never at its ends, which are
    // trimmed); none of them is a line break, which multipart encoding would rewrite.
    arbs.push(
      fc
        .tuple(
          validStringArb(schema),
          fc.constantFrom('\u202E', '\u202A', '\u2066', '\u2069', '\t', '\u0085', '\u001B'),
        )
        .map(
          ([value, control]): Mutation => ({
            kind: 'control',
            field,
            value: `${value.trim().slice(0, 1)}${control}${value.trim().slice(1)}`,
          }),
        )
        .filter(
          (mutation) =>
            codePointLength(String(mutation.value)) <= ((maxLength as number | undefined) ?? 1e9) &&
            !stringIsValid(schema, String(mutation.value)),
        ),
    );
  }
  return arbs;
}

/** Every way to make one field of the body invalid. */
export function fieldMutationArbs(
  schema: JsonSchema,
  bodyKind: BodyKind | undefined,
): fc.Arbitrary<Mutation>[] {
  const properties = propertiesOf(schema);
  const required = new Set(requiredOf(schema));
  const arbs: fc.Arbitrary<Mutation>[] = [];
  for (const [field, property] of Object.entries(properties)) {
    const types = typesOf(property);
    if (required.has(field)) {
      arbs.push(fc.constant<Mutation>({ kind: 'missing', field }));
      if (types.includes('string') || isBinary(property)) {
        arbs.push(
          fc
            .constantFrom('', ' ', '\t\n ', '\u3000\u00A0')
            .map((value): Mutation => ({ kind: 'blank', field, value })),
        );
      }
    }
    if (isBinary(property)) {
      if (bodyKind === 'multipart') {
        arbs.push(
          fc
            .constantFrom('abc', 'https://x.ng/id.pdf')
            .map((value): Mutation => ({ kind: 'text-for-file', field, value })),
        );
      }
      continue;
    }
    if (bodyKind === 'multipart') {
      arbs.push(
        validStringArb(property).map(
          (value): Mutation => ({ kind: 'file-for-text', field, value: new TextAsFile(value) }),
        ),
      );
      arbs.push(
        fc
          .tuple(validStringArb(property), validStringArb(property))
          .map(([a, b]): Mutation => ({ kind: 'repeated', field, value: new Repeated([a, b]) })),
      );
    } else {
      for (const value of wrongTypeValues(types, bodyKind)) {
        arbs.push(value.map((item): Mutation => ({ kind: 'wrong-type', field, value: item })));
      }
    }
    if (types.includes('string')) arbs.push(...invalidStringMutations(field, property));
    if (types.includes('integer') || types.includes('number')) {
      const below = typeof property['minimum'] === 'number' ? property['minimum'] - 1 : undefined;
      const above = typeof property['maximum'] === 'number' ? property['maximum'] + 1 : undefined;
      const values: unknown[] = [new RawJson('1e400'), new RawJson('-1e400')];
      if (below !== undefined) values.push(below, -(2 ** 53) - 2);
      if (above !== undefined) values.push(above, 2 ** 53 + 2, 1e308);
      if (types.includes('integer') && !types.includes('number')) values.push(1.5);
      arbs.push(
        fc.constantFrom(...values).map((value): Mutation => ({ kind: 'out-of-range', field, value })),
      );
    }
  }
  return arbs;
}

export function applyMutation(body: Record<string, unknown>, mutation: Mutation): Record<string, unknown> {
  const copy = Object.fromEntries(Object.entries(body));
  if (mutation.patch) {
    for (const name of mutation.patch.remove ?? []) delete copy[name];
    Object.assign(copy, mutation.patch.set ?? {});
  } else if (mutation.kind === 'missing') delete copy[mutation.field];
  else copy[mutation.field] = mutation.value;
  return copy;
}

/** A string that takes exactly `size` bytes in a JSON body, for body-size limits. */
export const bigStringOfBytes = (size: number): BigString => new BigString('a', size);
