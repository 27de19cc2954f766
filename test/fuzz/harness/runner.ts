import { randomInt } from 'node:crypto';
import fc from 'fast-check';
import {
  applyMutation,
  bigStringOfBytes,
  extrasArb,
  fieldMutationArbs,
  holdsForbiddenControl,
  INJECTION_STRINGS,
  type Mutation,
  SENTINEL_STRING,
  textArb,
  trimmedFor,
  UNICODE_STRINGS,
  validValueArb,
} from './arbitraries.js';
import { type ResolvedRequest, resolveRequest, send } from './client.js';
import {
  FORMATS,
  IDEMPOTENCY_KEY_MAX,
  isIdempotentOperation,
  JSON_BODY_LIMIT,
  phoneInE164,
  type SchemeName,
} from './contract.js';
import type { OperationHints } from './hints.js';
import { findKnownIssue } from './known-issues.js';
import {
  isBinary,
  type JsonSchema,
  type Operation,
  type ParameterSpec,
  propertiesOf,
  requiredOf,
  typesOf,
} from './openapi.js';
import {
  checkMassAssignment,
  checkPage,
  checkPrototype,
  checkResponse,
  checkSecrets,
  type HttpResult,
  type Violation,
} from './oracle.js';
import { type Focus, persistedChanges, snapshot } from './persistence.js';
import type {
  AuthChoice,
  AuthVariant,
  BadAuth,
  BodyChoice,
  Expectation,
  PropertyName,
  RequestPlan,
  ValueChoice,
} from './plan.js';
import { FilePart, preview } from './values.js';
import type { FuzzWorld, PoolName } from './world.js';

/** Cases per property per operation: FUZZ_RUNS (default 25 inside npm test, 1000 in scripts/fuzz.mjs). */
export const FUZZ_RUNS = Math.max(1, Number(process.env['FUZZ_RUNS'] ?? 25) || 25);

/**
 * Cases for the narrower properties (transport, invalid-params, invalid-query, auth,
 * idempotency-key), whose inputs come from shorter lists: FUZZ_RUNS unless FUZZ_RUNS_SECONDARY
 * says otherwise (a knob for long runs that want to spend their time on valid and invalid bodies).
 */
export const FUZZ_RUNS_SECONDARY = Math.max(
  1,
  Number(process.env['FUZZ_RUNS_SECONDARY'] ?? FUZZ_RUNS) || FUZZ_RUNS,
);

export const runsFor = (property: PropertyName): number =>
  property === 'valid' || property === 'invalid-body' ? FUZZ_RUNS : FUZZ_RUNS_SECONDARY;

const TRACE = process.env['FUZZ_TRACE'] === '1';

/**
 * Node's test runner reads a child's stdout as a mix of its own serialized messages and text; raw
 * non-ASCII (random unicode) in console output can be mistaken for a message. Print ASCII only.
 */
export const ascii = (text: string): string =>
  text.replace(/[^\x20-\x7e\n]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);

export const ALL_PROPERTIES: PropertyName[] = [
  'valid',
  'invalid-body',
  'transport',
  'invalid-params',
  'invalid-query',
  'auth',
  'idempotency-key',
];

/** What one operation has been through, for the final report. */
export interface OpStats {
  operationId: string;
  cases: Partial<Record<PropertyName, number>>;
  statuses: Record<string, number>;
  warnings: Map<string, { count: number; reason: string; example: string }>;
}

export interface OpContext {
  world: FuzzWorld;
  op: Operation;
  hints: OperationHints;
  stats: OpStats;
}

export function newStats(operationId: string): OpStats {
  return { operationId, cases: {}, statuses: {}, warnings: new Map() };
}

/** The properties that apply to an operation. */
export function propertiesFor(op: Operation): PropertyName[] {
  return ALL_PROPERTIES.filter((property) => {
    switch (property) {
      case 'valid':
        return true;
      case 'invalid-body':
        return op.bodySchema !== undefined && Object.keys(propertiesOf(op.bodySchema)).length > 0;
      case 'transport':
        return op.bodyKind !== undefined;
      case 'invalid-params':
        return op.pathParams.length > 0;
      case 'invalid-query':
        return op.queryParams.length > 0;
      case 'auth':
        return op.security.length > 0;
      case 'idempotency-key':
        return idempotencyHeader(op) !== undefined;
    }
    return false;
  });
}

// ---------------------------------------------------------------------------------------------
// Parameters

const encodable = (value: string): boolean => {
  try {
    encodeURIComponent(value);
    return true;
  } catch {
    return false;
  }
};

/** Values the URL parser would rewrite (dot segments) or that empty the segment change the route itself. */
const changesRoute = (value: string): boolean => value.trim() === '' || /^(\.|%2e)+$/i.test(value);

function integerIsValid(schema: JsonSchema, value: string): boolean {
  const text = value.trim();
  if (text === '') return false;
  const number = Number(text);
  return (
    Number.isInteger(number) &&
    (typeof schema['minimum'] !== 'number' || number >= schema['minimum']) &&
    (typeof schema['maximum'] !== 'number' || number <= schema['maximum'])
  );
}

/** Whether the server must take a parameter value for its schema (query and path values are text). */
function paramIsValid(schema: JsonSchema, value: string): boolean {
  const types = typesOf(schema);
  if (types.includes('integer') || types.includes('number')) return integerIsValid(schema, value);
  const text = value.trim();
  if (text === '' || text.includes('\u0000') || holdsForbiddenControl(schema, text)) return false;
  const length = [...text].length;
  if (typeof schema['minLength'] === 'number' && length < schema['minLength']) return false;
  if (typeof schema['maxLength'] === 'number' && length > schema['maxLength']) return false;
  if (Array.isArray(schema['enum']) && !schema['enum'].includes(text)) return false;
  if (typeof schema['pattern'] === 'string' && !new RegExp(schema['pattern'], 'u').test(text)) return false;
  const format = schema['format'];
  if (typeof format === 'string' && FORMATS[format] && !FORMATS[format](text)) return false;
  return true;
}

function validParamValue(schema: JsonSchema): fc.Arbitrary<string> {
  const types = typesOf(schema);
  if (types.includes('integer')) {
    return fc
      .integer({
        min: typeof schema['minimum'] === 'number' ? schema['minimum'] : -(2 ** 31),
        max: typeof schema['maximum'] === 'number' ? schema['maximum'] : 2 ** 31 - 1,
      })
      .map(String);
  }
  if (Array.isArray(schema['enum'])) return fc.constantFrom(...(schema['enum'] as string[]));
  if (schema['format'] === 'uuid') return fc.uuid();
  // Random text almost never is a real date: generate dates (the filter below would spin forever).
  if (schema['format'] === 'date') {
    return fc
      .date({
        min: new Date('1900-01-01T00:00:00Z'),
        max: new Date('2100-12-31T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((date) => date.toISOString().slice(0, 10));
  }
  if (typeof schema['pattern'] === 'string') return fc.stringMatching(new RegExp(schema['pattern']));
  // Likewise e-mail addresses: random text that passes the filter below is rare enough to take
  // seconds a value (listVirtualAccounts' email filter alone took 10 s of the file's 120 s).
  if (schema['format'] === 'email')
    return fc.emailAddress().filter((value) => encodable(value) && paramIsValid(schema, value));
  const max = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : 64;
  return textArb(typeof schema['minLength'] === 'number' ? schema['minLength'] : 1, max).filter(
    (value) => encodable(value) && paramIsValid(schema, value),
  );
}

function invalidParamValue(schema: JsonSchema): fc.Arbitrary<string> {
  const maxLength = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : undefined;
  return fc
    .oneof(
      fc.constantFrom(...INJECTION_STRINGS, ...UNICODE_STRINGS),
      fc.constantFrom(
        '0',
        '-1',
        '2147483648',
        '1.5',
        '1e400',
        'abc',
        '00000000-0000-0000-0000-00000000000g',
        'NULL',
        '%00',
      ),
      fc.string({ minLength: 1, maxLength: 30 }),
      fc.constantFrom('a', '9', '😀').map((char) => char.repeat((maxLength ?? 300) + 1)),
      fc.stringMatching(/^[0-9]{1,20}$/),
    )
    .filter((value) => encodable(value) && !changesRoute(value) && !paramIsValid(schema, value));
}

function pooledParam(pools: PoolName[] | undefined, random: fc.Arbitrary<string>): fc.Arbitrary<ValueChoice> {
  const literal = random.map((value): ValueChoice => ({ literal: value }));
  if (!pools || pools.length === 0) return literal;
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.constantFrom(...pools), fc.nat())
        .map(([pool, index]): ValueChoice => ({ pool, index })),
    },
    { weight: 1, arbitrary: literal },
  );
}

function paramsArb(ctx: OpContext): fc.Arbitrary<Record<string, ValueChoice>> {
  const model: Record<string, fc.Arbitrary<ValueChoice>> = {};
  for (const param of ctx.op.pathParams) {
    model[param.name] = pooledParam(ctx.hints.params?.[param.name], validParamValue(param.schema));
  }
  return fc.record(model);
}

function invalidParamsArb(
  ctx: OpContext,
): fc.Arbitrary<{ params: Record<string, ValueChoice>; name: string }> {
  return fc.tuple(paramsArb(ctx), fc.constantFrom(...ctx.op.pathParams)).chain(([params, param]) =>
    invalidParamValue(param.schema).map((value) => ({
      params: { ...params, [param.name]: { literal: value } },
      name: param.name,
    })),
  );
}

// ---------------------------------------------------------------------------------------------
// Query strings

function queryValueArb(ctx: OpContext, param: ParameterSpec): fc.Arbitrary<ValueChoice> {
  const random = fc.oneof(
    { weight: 4, arbitrary: validParamValue(param.schema) },
    { weight: 1, arbitrary: validParamValue(param.schema).map((value) => ` ${value} `) },
  );
  if (param.name === 'cursor') {
    // Mostly a real next_cursor of this list (left out until one was seen), sometimes garbage.
    return fc.oneof(
      {
        weight: 3,
        arbitrary: fc
          .nat()
          .map((index): ValueChoice => ({ pool: `cursor:${ctx.op.operationId}`, index, omitIfEmpty: true })),
      },
      { weight: 1, arbitrary: random.map((value): ValueChoice => ({ literal: value })) },
    );
  }
  return pooledParam(ctx.hints.query?.[param.name], random);
}

const UNKNOWN_QUERY: Array<[string, string]> = [
  ['foo', 'bar'],
  ['__proto__[polluted]', SENTINEL_STRING],
  ['constructor[prototype][polluted]', SENTINEL_STRING],
  ['__proto__.polluted', SENTINEL_STRING],
  ['limit[]', '5'],
];

function queryArb(ctx: OpContext): fc.Arbitrary<Array<[string, ValueChoice]>> {
  const declared = ctx.op.queryParams.map((param) =>
    fc.option(
      queryValueArb(ctx, param).map((value): [string, ValueChoice] => [param.name, value]),
      { nil: undefined },
    ),
  );
  const unknown = fc.option(
    fc
      .constantFrom(...UNKNOWN_QUERY)
      .map(([name, value]): [string, ValueChoice] => [name, { literal: value }]),
    { nil: undefined, freq: 4 },
  );
  return fc
    .tuple(fc.tuple(...declared), unknown)
    .map(([entries, extra]) =>
      [...entries, extra].filter((entry): entry is [string, ValueChoice] => entry !== undefined),
    );
}

function invalidQueryArb(
  ctx: OpContext,
): fc.Arbitrary<{ query: Array<[string, ValueChoice]>; name: string }> {
  return fc.tuple(queryArb(ctx), fc.constantFrom(...ctx.op.queryParams)).chain(([query, param]) => {
    const others = query.filter(([name]) => name !== param.name);
    const invalid = invalidParamValue(param.schema).map(
      (value): Array<[string, ValueChoice]> => [...others, [param.name, { literal: value }]],
    );
    const repeated = fc
      .tuple(validParamValue(param.schema), validParamValue(param.schema))
      .map(
        ([a, b]): Array<[string, ValueChoice]> => [
          ...others,
          [param.name, { literal: a }],
          [param.name, { literal: b }],
        ],
      );
    return fc.oneof(invalid, repeated).map((entries) => ({ query: entries, name: param.name }));
  });
}

// ---------------------------------------------------------------------------------------------
// Authorization

const printable = fc.stringMatching(/^[\x21-\x7e]{1,80}$/);

function validAuthArb(op: Operation): fc.Arbitrary<AuthChoice> {
  if (op.security.length === 0) {
    return fc.oneof(
      { weight: 4, arbitrary: fc.constant<AuthChoice>({ kind: 'none' }) },
      {
        weight: 1,
        arbitrary: fc
          .oneof(
            printable.map((value) => `Bearer ${value}`),
            printable,
            fc.constant('Basic YWRtaW46YWRtaW4='),
          )
          .map((value): AuthChoice => ({ kind: 'ignored', value })),
      },
    );
  }
  return fc.record({
    kind: fc.constant('credential' as const),
    scheme: fc.constantFrom(...(op.security as SchemeName[])),
    variant: fc.oneof(
      { weight: 8, arbitrary: fc.constant<AuthVariant>('standard') },
      {
        weight: 1,
        arbitrary: fc.constantFrom<AuthVariant>('lowercase', 'uppercase', 'double-space', 'trailing-space'),
      },
    ),
  });
}

const SCHEMES: SchemeName[] = ['sessionToken', 'apiKey', 'adminKey'];

function badAuthArb(op: Operation): fc.Arbitrary<{ auth: AuthChoice; expect: Expectation }> {
  const bad: BadAuth[] = [
    'missing',
    'empty',
    'scheme-only',
    'garbage',
    'basic',
    'no-scheme',
    'token-scheme',
    'tampered',
    'truncated',
    'fake-api-key',
    'too-long',
    'tab-separator',
    'two-credentials',
    'revoked-api-key',
    'logged-out-session',
    ...SCHEMES.filter((scheme) => !op.security.includes(scheme)).map(
      (scheme): BadAuth => `wrong-kind:${scheme}`,
    ),
  ];
  return fc.tuple(fc.constantFrom(...bad), printable).map(([kind, garbage]) => {
    // An API key on a dashboard (session-only) endpoint is 403 FORBIDDEN; else 401
    // (docs/partner-guide.md, "Authentication").
    const forbidden = kind === 'wrong-kind:apiKey' && op.security.includes('sessionToken');
    return {
      auth: { kind: 'bad', bad: kind, garbage },
      expect: {
        kind: 'reject',
        why: forbidden
          ? 'an API key on a session-only endpoint is 403 FORBIDDEN'
          : `credential ${kind} is 401`,
        statuses: forbidden ? [403] : [401],
      },
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Bodies

function validBodyArb(ctx: OpContext): fc.Arbitrary<Record<string, unknown>> {
  const schema = ctx.op.bodySchema ?? {};
  const properties = propertiesOf(schema);
  const required = new Set(requiredOf(schema));
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) {
    const value = ctx.hints.fields?.[name] ?? validValueArb(property, ctx.op.bodyKind);
    model[name] =
      !required.has(name) &&
      typesOf(property).includes('string') &&
      !isBinary(property) &&
      !ctx.hints.fields?.[name]
        ? fc.oneof({ weight: 8, arbitrary: value }, { weight: 1, arbitrary: fc.constantFrom('', '   ') })
        : value;
  }
  const generated = fc.record(model, { requiredKeys: [...required].filter((name) => name in properties) });
  const record = ctx.hints.bodies ? fc.oneof(generated, ctx.hints.bodies) : generated;
  const refine = ctx.hints.refine;
  return refine ? fc.tuple(record, fc.nat()).map(([body, choice]) => refine(body, choice)) : record;
}

function extrasFor(ctx: OpContext): fc.Arbitrary<Array<[string, unknown]>> {
  // The operator's answers hold whole partner records, where onboarding_status "active" is normal.
  const avoid = [
    ...(ctx.hints.avoidExtras ?? []),
    ...(ctx.op.security.includes('adminKey') ? ['onboarding_status'] : []),
  ];
  const extras = extrasArb(ctx.op.bodySchema, avoid);
  // Multipart parts are text: only text extras make sense there.
  return ctx.op.bodyKind === 'multipart'
    ? extras.map((entries) => entries.filter(([, value]) => typeof value === 'string'))
    : extras;
}

function toBodyChoice(
  ctx: OpContext,
  body: Record<string, unknown>,
  extras: Array<[string, unknown]>,
): BodyChoice {
  const entries = [...Object.entries(body), ...extras];
  if (ctx.op.bodyKind === 'multipart') {
    return { kind: 'multipart', parts: entries.filter(([, value]) => value !== undefined) };
  }
  return { kind: 'json', value: Object.fromEntries(entries) };
}

interface BodyCase {
  body: BodyChoice;
  contentType?: string;
  extras: Array<[string, unknown]>;
  mutation?: Mutation;
  expect: Expectation;
}

function validBodyCaseArb(ctx: OpContext): fc.Arbitrary<BodyCase | undefined> {
  if (!ctx.op.bodyKind) return fc.constant(undefined);
  return fc
    .tuple(
      validBodyArb(ctx),
      fc.option(extrasFor(ctx), { nil: [], freq: 3 }),
      fc.constantFrom(
        'application/json',
        'application/json',
        'application/json',
        'application/json; charset=utf-8',
      ),
    )
    .map(([body, extras, contentType]) => ({
      body: toBodyChoice(ctx, body, extras),
      ...(ctx.op.bodyKind === 'json' ? { contentType } : {}),
      extras,
      expect: ctx.hints.expect?.(body, ctx.world) ?? { kind: 'any' },
    }));
}

function invalidBodyCaseArb(ctx: OpContext): fc.Arbitrary<BodyCase> {
  const schema = ctx.op.bodySchema ?? {};
  const mutations: Array<fc.Arbitrary<Mutation & { statuses?: number[] }>> = [
    ...fieldMutationArbs(schema, ctx.op.bodyKind),
    ...(ctx.hints.invalid ?? []),
  ];
  return fc
    .tuple(validBodyArb(ctx), fc.oneof(...mutations), fc.option(extrasFor(ctx), { nil: [], freq: 4 }))
    .map(([body, mutation, extras]) => {
      const statuses = (mutation as { statuses?: number[] }).statuses ?? [422];
      const schemaLevel = mutation.kind !== 'business-rule' && mutation.kind !== 'bad-file';
      return {
        body: toBodyChoice(ctx, applyMutation(body, mutation), extras),
        extras,
        mutation,
        expect: {
          kind: 'reject',
          why: `${mutation.kind} on ${mutation.field}`,
          // Schema failures come before any business check: exactly 422 naming the field.
          ...(schemaLevel || statuses[0] !== 422 ? { statuses } : {}),
          ...(statuses.includes(422) ? { field: mutation.field } : {}),
        },
      } satisfies BodyCase;
    });
}

/** Malformed, mistyped, oversized and wrongly labelled bodies. */
function transportCaseArb(ctx: OpContext): fc.Arbitrary<BodyCase> {
  const reject = (why: string, statuses?: number[]): Expectation => ({
    kind: 'reject',
    why,
    ...(statuses ? { statuses } : {}),
  });
  const hasRequired = requiredOf(ctx.op.bodySchema).length > 0;
  const wrongType: fc.Arbitrary<BodyCase> = fc
    .constantFrom(
      ['text/plain', '{"a":1}'],
      ['application/xml', '<a>1</a>'],
      ['application/x-www-form-urlencoded', 'a=1&b=2'],
      ['text/html', '<script>alert(1)</script>'],
      ['application/jsonx', '{}'],
      ['image/png', '\u0089PNG'],
    )
    .map(([contentType, text]) => ({
      body: { kind: 'raw', contentType, text },
      extras: [],
      expect: reject(`Content-Type ${contentType}`, [400, 415]),
    }));
  const noContentType: fc.Arbitrary<BodyCase> = fc.constant({
    body: { kind: 'raw', contentType: null, text: new Uint8Array(Buffer.from('{"a":1}')) },
    extras: [],
    expect: reject('a body without Content-Type', [400, 415]),
  });
  if (ctx.op.bodyKind === 'json') {
    const malformed: fc.Arbitrary<BodyCase> = fc
      .constantFrom(
        '{',
        '{"a":}',
        "{'a':1}",
        '[1,2',
        'NaN',
        'undefined',
        '{"a":1}garbage',
        '{"a":1,}',
        '{"a":"\\u00zz"}',
        '\u0000',
        '{"a" 1}',
        '}{',
      )
      .map((text) => ({
        body: { kind: 'raw', contentType: 'application/json', text },
        extras: [],
        expect: reject('malformed JSON', [400]),
      }));
    const nonObject: fc.Arbitrary<BodyCase> = fc
      .constantFrom(
        '[]',
        '[{}]',
        '"a string"',
        '42',
        'true',
        '-1e400',
        ...(hasRequired ? ['null', '{}', ''] : []),
      )
      .map((text) => ({
        body: { kind: 'raw', contentType: 'application/json', text },
        extras: [],
        expect: reject(`JSON body ${JSON.stringify(text)}`),
      }));
    const oversized: fc.Arbitrary<BodyCase> = fc
      .tuple(validBodyArb(ctx), fc.constantFrom(...Object.keys(propertiesOf(ctx.op.bodySchema)), 'padding'))
      .map(([body, field]) => ({
        body: { kind: 'json', value: { ...body, [field]: bigStringOfBytes(JSON_BODY_LIMIT + 1024) } },
        extras: [],
        expect: reject('a JSON body over 100 KiB', [413]),
      }));
    const multipart: fc.Arbitrary<BodyCase> = validBodyArb(ctx).map((body) => ({
      body: {
        kind: 'multipart',
        parts: Object.entries(body).map(([name, value]) => [
          name,
          typeof value === 'string' ? value : JSON.stringify(value),
        ]),
      },
      extras: [],
      expect: reject('multipart to a JSON endpoint', [400, 415]),
    }));
    return fc.oneof(malformed, nonObject, wrongType, noContentType, oversized, multipart);
  }
  // multipart
  const boundary = 'fuzzboundary';
  const malformed: fc.Arbitrary<BodyCase> = fc
    .constantFrom<[string | null, string, number[]]>(
      [
        null,
        `--${boundary}\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--${boundary}--\r\n`,
        [400, 415],
      ],
      [boundary, `--${boundary}\r\nContent-Disposition: form-data; name="a"\r\n\r\n1`, [400]],
      [boundary, `--${boundary}\r\nno headers here\r\n--${boundary}--`, [400, 422]],
      [boundary, 'not multipart at all', [400, 422]],
      [
        boundary,
        `--${boundary}\r\nContent-Disposition: form-data; name="__proto__"\r\n\r\n{"polluted":"x"}\r\n--${boundary}--\r\n`,
        [400, 422],
      ],
      [
        boundary,
        `--${boundary}\r\nContent-Disposition: form-data; name="constructor"\r\n\r\nx\r\n--${boundary}--\r\n`,
        [400, 422],
      ],
    )
    .map(([declared, text, statuses]) => ({
      body: { kind: 'raw-multipart', boundary: declared, text },
      extras: [],
      expect: reject('malformed multipart', statuses),
    }));
  const json: fc.Arbitrary<BodyCase> = validBodyArb(ctx).map((body) => ({
    body: { kind: 'raw', contentType: 'application/json', text: JSON.stringify(body) },
    extras: [],
    expect: reject('JSON to a multipart endpoint', [400, 415]),
  }));
  const tooManyParts: fc.Arbitrary<BodyCase> = fc.integer({ min: 31, max: 60 }).map((count) => ({
    body: {
      kind: 'multipart',
      parts: Array.from({ length: count }, (_, index): [string, unknown] => [`f${index}`, 'x']),
    },
    extras: [],
    expect: reject(`${count} fields`),
  }));
  // One file per file field: the field sent twice is a 422 (files under unknown names are ignored).
  const fileField =
    Object.entries((ctx.op.bodySchema?.['properties'] ?? {}) as Record<string, { format?: string }>).find(
      ([, schema]) => schema.format === 'binary',
    )?.[0] ?? 'file';
  const twoFiles: fc.Arbitrary<BodyCase> = validBodyArb(ctx).map((body) => ({
    body: {
      kind: 'multipart',
      parts: [
        ...Object.entries(body).filter(([name]) => name !== fileField),
        [fileField, new FilePart('png', 'a.png', 'image/png')],
        [fileField, new FilePart('pdf', 'b.pdf', 'application/pdf')],
      ],
    },
    extras: [],
    expect: reject('the file field sent twice'),
  }));
  return fc.oneof(malformed, json, wrongType, noContentType, tooManyParts, twoFiles);
}

// ---------------------------------------------------------------------------------------------
// Idempotency-Key

/**
 * The Idempotency-Key header of an operation: as documented, or (docs/partner-guide.md,
 * "Authentication": every POST under /services/) 1-255 characters when the document leaves it out.
 */
export function idempotencyHeader(op: Operation): JsonSchema | undefined {
  const documented = op.headerParams.find((param) => param.name.toLowerCase() === 'idempotency-key');
  if (documented) return documented.schema;
  return isIdempotentOperation(op.method, op.path) && op.security.length > 0
    ? { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX }
    : undefined;
}

function validIdempotencyArb(op: Operation): fc.Arbitrary<ValueChoice | undefined> {
  if (!idempotencyHeader(op)) return fc.constant(undefined);
  return fc.option(
    fc.oneof(
      fc.uuid().map((value): ValueChoice => ({ literal: value })),
      fc.stringMatching(/^[\x21-\x7e]{1,255}$/).map((value): ValueChoice => ({ literal: value })),
      fc.constant<ValueChoice>({ literal: 'k'.repeat(IDEMPOTENCY_KEY_MAX) }),
      fc.nat().map((index): ValueChoice => ({ pool: 'idempotencyKey', index })),
    ),
    { nil: undefined, freq: 2 },
  );
}

/** Keys outside the header's schema: empty, or longer than its maxLength (header-safe characters). */
function badIdempotencyKey(schema: JsonSchema): fc.Arbitrary<string> {
  const max = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : IDEMPOTENCY_KEY_MAX;
  const min = typeof schema['minLength'] === 'number' ? schema['minLength'] : 1;
  return fc.oneof(
    ...(min >= 1 ? [fc.constant('')] : []),
    fc
      .tuple(fc.integer({ min: max + 1, max: 4000 }), fc.constantFrom('k', '-', '9', '~'))
      .map(([length, char]) => char.repeat(length)),
  );
}

// ---------------------------------------------------------------------------------------------
// Plans

export function planArb(ctx: OpContext, property: PropertyName): fc.Arbitrary<RequestPlan> {
  const { op } = ctx;
  const base = fc.record({
    params: paramsArb(ctx),
    query: queryArb(ctx),
    auth: validAuthArb(op),
    body: validBodyCaseArb(ctx),
    idempotencyKey: validIdempotencyArb(op),
  });
  const plan = (
    parts: {
      params: Record<string, ValueChoice>;
      query: Array<[string, ValueChoice]>;
      auth: AuthChoice;
      idempotencyKey?: ValueChoice | undefined;
    },
    bodyCase: BodyCase | undefined,
    expect: Expectation,
  ): RequestPlan => ({
    property,
    params: parts.params,
    query: parts.query,
    auth: parts.auth,
    ...(bodyCase ? { body: bodyCase.body, extras: bodyCase.extras } : {}),
    ...(bodyCase?.contentType ? { contentType: bodyCase.contentType } : {}),
    ...(bodyCase?.mutation ? { mutation: bodyCase.mutation } : {}),
    ...(parts.idempotencyKey ? { idempotencyKey: parts.idempotencyKey } : {}),
    expect,
  });
  switch (property) {
    case 'valid':
      return base.map((parts) => plan(parts, parts.body, parts.body?.expect ?? { kind: 'any' }));
    case 'invalid-body':
      return fc
        .tuple(base, invalidBodyCaseArb(ctx))
        .map(([parts, bodyCase]) => plan({ ...parts, idempotencyKey: undefined }, bodyCase, bodyCase.expect));
    case 'transport':
      return fc
        .tuple(base, transportCaseArb(ctx))
        .map(([parts, bodyCase]) => plan({ ...parts, idempotencyKey: undefined }, bodyCase, bodyCase.expect));
    case 'invalid-params':
      return fc.tuple(base, invalidParamsArb(ctx)).map(([parts, invalid]) =>
        plan({ ...parts, params: invalid.params, idempotencyKey: undefined }, parts.body, {
          kind: 'reject',
          why: `path parameter ${invalid.name} cannot be an id: 404 NOT_FOUND`,
          statuses: [404],
        }),
      );
    case 'invalid-query':
      return fc.tuple(base, invalidQueryArb(ctx)).map(([parts, invalid]) =>
        plan({ ...parts, query: invalid.query }, parts.body, {
          kind: 'reject',
          why: `query parameter ${invalid.name} is invalid: 422 naming it`,
          statuses: [422],
          field: invalid.name,
        }),
      );
    case 'auth':
      return fc
        .tuple(base, badAuthArb(op))
        .map(([parts, bad]) =>
          plan({ ...parts, auth: bad.auth, idempotencyKey: undefined }, parts.body, bad.expect),
        );
    case 'idempotency-key':
      return fc.tuple(base, badIdempotencyKey(idempotencyHeader(op) ?? {})).map(([parts, key]) =>
        plan({ ...parts, idempotencyKey: { literal: key } }, parts.body, {
          kind: 'reject',
          why: `Idempotency-Key of ${key.length} chars (1-255 allowed): 422 naming the header`,
          statuses: [422],
          field: 'idempotency-key',
        }),
      );
  }
}

// ---------------------------------------------------------------------------------------------
// Running one case

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function checkExpectation(plan: RequestPlan, result: HttpResult): Violation[] {
  const { status } = result;
  const expect = plan.expect;
  const body = isRecord(result.json) ? result.json : {};
  if (expect.kind === 'any') {
    if (status === 401 && plan.auth.kind === 'credential') {
      return [
        {
          check: 'valid-credential-refused',
          message: `a real ${plan.auth.scheme} credential got 401 ${String(body['error_code'])}`,
        },
      ];
    }
    return [];
  }
  if (expect.kind === 'one-of') {
    return expect.statuses.includes(status)
      ? []
      : [
          {
            check: 'wrong-rejection',
            message: `expected ${expect.statuses.join('/')} (${expect.why}), got ${status}`,
          },
        ];
  }
  if (status >= 200 && status < 400) {
    return [{ check: 'accepted-invalid', message: `invalid input accepted with ${status} (${expect.why})` }];
  }
  if (status >= 500) return [];
  const violations: Violation[] = [];
  if (expect.statuses && !expect.statuses.includes(status)) {
    violations.push({
      check: 'wrong-rejection',
      message: `expected ${expect.statuses.join('/')} for ${expect.why}, got ${status} ${String(body['error_code'])}`,
    });
  }
  if (expect.field && status === 422 && body['error_code'] === 'VALIDATION_FAILED') {
    const errors = isRecord(body['errors']) ? Object.keys(body['errors']) : [];
    const field = expect.field;
    if (
      !errors.some((name) => name === field || name.startsWith(`${field}.`) || name.startsWith(`${field}[`))
    ) {
      violations.push({
        check: 'wrong-rejection',
        message: `422 does not name ${field} (${expect.why}); errors names ${errors.join(', ') || 'nothing'}`,
      });
    }
  }
  return violations;
}

/**
 * Strings are trimmed, e-mails lower-cased (docs/partner-guide.md, "Responses and errors"), phone
 * numbers written in E.164 (docs/decisions.md, "Phone numbers"); a 2xx
 * echoing a field shows what was stored.
 */
function checkRoundTrip(op: Operation, plan: RequestPlan, result: HttpResult): Violation[] {
  if (plan.property !== 'valid' || result.status >= 300 || result.headers.get('idempotent-replayed'))
    return [];
  if (!isRecord(result.json) || !isRecord(result.json['data'])) return [];
  const data = result.json['data'];
  const sent: Array<[string, unknown]> =
    plan.body?.kind === 'json' && isRecord(plan.body.value)
      ? Object.entries(plan.body.value)
      : plan.body?.kind === 'multipart'
        ? plan.body.parts
        : [];
  const properties = propertiesOf(op.bodySchema);
  const violations: Violation[] = [];
  for (const [field, value] of sent) {
    const schema = properties[field];
    if (!schema || typeof value !== 'string' || isBinary(schema) || schema['x-trim'] === false) continue;
    if (['bvn', 'otp', 'password', 'password_confirmation'].includes(field)) continue;
    // The client's multipart/form-data encoding turns every lone CR or LF of a text field into CRLF
    // and every unpaired surrogate into U+FFFD: that is what the server received.
    const wire =
      plan.body?.kind === 'multipart'
        ? value
            .replace(/\r\n|\r|\n/g, '\r\n')
            .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
        : value;
    const trimmed = trimmedFor(schema, wire);
    if (trimmed === '') continue;
    const expected =
      schema['format'] === 'email'
        ? trimmed.toLowerCase()
        : schema['format'] === 'phone'
          ? (phoneInE164(trimmed) ?? trimmed)
          : trimmed;
    const holders = [data, data['customer'], data['representative']].filter(isRecord);
    for (const holder of holders) {
      const echoed = holder[field];
      if (typeof echoed === 'string' && echoed !== expected) {
        violations.push({
          check: 'round-trip',
          message: `${field} sent as ${JSON.stringify(value)} comes back as ${JSON.stringify(echoed)} (expected ${JSON.stringify(expected)})`,
          details: { field, sent: value, echoed, expected },
        });
      }
    }
  }
  return violations;
}

const PARTNER_SCHEMES = new Set(['sessionToken', 'apiKey']);

/** A resource of another partner is 404, never served (docs/partner-guide.md, "Responses and errors"). */
function checkTenancy(
  op: Operation,
  plan: RequestPlan,
  request: ResolvedRequest,
  result: HttpResult,
): Violation[] {
  if (result.status >= 300 || result.status < 200) return [];
  const owners = Object.entries(request.params).filter(
    ([, param]) => param.owner !== undefined && param.owner !== 'any',
  );
  if (plan.auth.kind === 'credential' && PARTNER_SCHEMES.has(plan.auth.scheme)) {
    const foreign = owners.filter(([, param]) => param.owner !== 'main');
    if (foreign.length > 0) {
      return [
        {
          check: 'cross-tenant',
          message: `the main partner got ${result.status} for ${foreign.map(([name, param]) => `${name} of ${param.owner}`).join(', ')}`,
        },
      ];
    }
  }
  const company = request.params['company_id'];
  const document = request.params['document_id'];
  if (
    company?.owner &&
    document?.owner &&
    company.owner !== document.owner &&
    op.security.includes('adminKey')
  ) {
    return [
      {
        check: 'cross-tenant',
        message: `document of ${document.owner} served under company of ${company.owner}`,
      },
    ];
  }
  return [];
}

const COLLECT: Record<string, [PoolName, string]> = {
  registerPartner: ['unverifiedEmail', 'email'],
  createTeamMember: ['teamMember', 'id'],
  createApiKey: ['apiKey', 'id'],
  createVirtualAccount: ['accountNumber', 'account_number'],
  uploadOnboardingDocument: ['document', 'id'],
};

function collect(ctx: OpContext, request: ResolvedRequest, result: HttpResult): void {
  const { world, op } = ctx;
  if (request.idempotencyKey) world.pools.add('idempotencyKey', request.idempotencyKey);
  if (result.status < 200 || result.status >= 300 || !isRecord(result.json)) return;
  const data = result.json['data'];
  if (!isRecord(data)) return;
  if (typeof data['next_cursor'] === 'string')
    world.pools.add(`cursor:${op.operationId}`, data['next_cursor']);
  const target = COLLECT[op.operationId];
  // Everything the fuzzer creates belongs to the main partner (its credentials are the only ones used).
  if (target && typeof data[target[1]] === 'string' && result.headers.get('idempotent-replayed') === null) {
    if (op.operationId !== 'createApiKey' || data['environment'] === 'sandbox') {
      world.pools.add(
        target[0],
        data[target[1]] as string,
        op.operationId === 'registerPartner' ? 'any' : 'main',
      );
    }
  }
}

/** The row a request names, when its parameter can be an id at all. */
function focusOf(request: ResolvedRequest): Focus {
  const focus: Focus = {};
  const params = request.params;
  const uuid = (name: string) => {
    const value = params[name]?.value;
    return value !== undefined && FORMATS['uuid']!(value) ? value : undefined;
  };
  const memberId = uuid('memberId');
  const documentId = uuid('document_id');
  const apiKeyId = request.path.includes('/api-keys/') ? uuid('id') : undefined;
  const accountNumber = params['account_number']?.value;
  if (memberId) focus.teamMember = memberId;
  if (documentId) focus.document = documentId;
  if (apiKeyId) focus.apiKey = apiKeyId;
  if (accountNumber !== undefined && /^[0-9]{10}$/.test(accountNumber)) focus.accountNumber = accountNumber;
  return focus;
}

/** The limit a list request asked for (default 20: docs/partner-guide.md, "Pagination"). */
function pageLimit(request: ResolvedRequest): number {
  const values = new URL(request.url).searchParams.getAll('limit');
  const limit = values.length === 1 ? Number(values[0]!.trim()) : Number.NaN;
  return Number.isInteger(limit) && limit >= 1 && limit <= 100 ? limit : 20;
}

const SECRET_FIELDS = ['password', 'password_confirmation', 'bvn', 'otp'];

/** Secrets a response must never contain: the request's own and the world's credentials. */
function secretsOf(ctx: OpContext, plan: RequestPlan, op: Operation): Array<[string, string]> {
  const { credentials } = ctx.world;
  const secrets: Array<[string, string]> = [
    ['the session token', credentials.sessionToken],
    ['the API key', credentials.apiKey],
    ['the admin key', credentials.adminKey],
    ['a revoked API key', credentials.revokedApiKey],
  ];
  const sent =
    plan.body?.kind === 'json' && isRecord(plan.body.value)
      ? Object.entries(plan.body.value)
      : plan.body?.kind === 'multipart'
        ? plan.body.parts
        : [];
  for (const [field, value] of sent) {
    if (!SECRET_FIELDS.includes(field) || typeof value !== 'string') continue;
    // A BVN must not come back whole; an over-long or malformed one is not a BVN.
    if (field === 'bvn' && !/^[0-9]{11}$/.test(value.trim())) continue;
    if (field === 'otp' && !['verifyPartnerOtp', 'resetPartnerPassword'].includes(op.operationId)) continue;
    // A password that is a plain word ("password") may well be a field name in the answer.
    if (field.startsWith('password') && /^[A-Za-z_ ]*$/.test(value)) continue;
    secrets.push([`the ${field} sent`, field === 'bvn' ? value.trim() : value]);
  }
  return secrets;
}

export class FuzzFailure extends Error {}

function statusLabel(result: HttpResult): string {
  const code = isRecord(result.json) ? result.json['error_code'] : undefined;
  return typeof code === 'string' ? `${result.status} ${code}` : String(result.status);
}

export async function runCase(ctx: OpContext, plan: RequestPlan): Promise<void> {
  const { world, op, stats } = ctx;
  if (TRACE) console.log(ascii(`plan ${preview(plan, 300)}`));
  if (plan.property === 'valid') await ctx.hints.beforeValidCase?.(world);
  const fresh = ctx.hints.freshSession === true && plan.auth.kind === 'credential';
  const request = await resolveRequest(world, op, plan, { freshSession: fresh });
  const snapAt = Date.now();
  const before = op.mutating ? await snapshot(world, focusOf(request)) : undefined;
  if (TRACE) console.log(`snapshot ${Date.now() - snapAt} ms`);
  let result: HttpResult;
  const sentAt = Date.now();
  try {
    if (TRACE) console.log(ascii(`> ${request.describe().split('\n')[0]}`));
    result = await send(request);
    if (TRACE) console.log(`< ${result.status} in ${Date.now() - sentAt} ms`);
  } catch (error) {
    throw new FuzzFailure(
      `[${op.operationId}/${plan.property}] transport: ${(error as Error).message}\nrequest:\n  ${request.describe()}`,
    );
  }
  const violations: Violation[] = [
    ...checkResponse(op, result),
    ...checkPrototype(),
    ...checkExpectation(plan, result),
    ...checkSecrets(result.text, secretsOf(ctx, plan, op)),
  ];
  if (result.status >= 200 && result.status < 300) {
    if (plan.property === 'valid' && isRecord(result.json) && !result.headers.get('idempotent-replayed')) {
      violations.push(...checkMassAssignment(result.json['data'], plan.extras ?? []));
    }
    violations.push(...checkRoundTrip(op, plan, result), ...checkTenancy(op, plan, request, result));
    if (op.queryParams.some((param) => param.name === 'limit') && isRecord(result.json)) {
      violations.push(...checkPage(result.json['data'], pageLimit(request)));
    }
  }
  if (before && result.status >= 400 && result.status < 500) {
    const after = await snapshot(world, focusOf(request));
    violations.push(
      ...(await persistedChanges(
        world,
        before,
        after,
        {
          otpAttempts: op.operationId === 'verifyPartnerOtp' || op.operationId === 'resetPartnerPassword',
          ...(request.idempotencyKey !== undefined ? { idempotencyKey: request.idempotencyKey } : {}),
        },
        result.status,
      )),
    );
  }
  collect(ctx, request, result);
  stats.cases[plan.property] = (stats.cases[plan.property] ?? 0) + 1;
  const label = statusLabel(result);
  stats.statuses[label] = (stats.statuses[label] ?? 0) + 1;

  const fatal: Violation[] = [];
  for (const violation of violations) {
    const issue = findKnownIssue({ op, plan, request, result, violation });
    if (!issue) {
      fatal.push(violation);
      continue;
    }
    const seen = stats.warnings.get(issue.id);
    if (seen) seen.count += 1;
    else {
      stats.warnings.set(issue.id, {
        count: 1,
        reason: issue.reason,
        example: `${violation.message}\n    ${request.describe().replace(/\n/g, '\n    ')}\n    → ${result.status} ${result.text.slice(0, 300)}`,
      });
    }
  }
  if (fatal.length > 0) {
    // Keep the case out of the statistics' error-free count but report everything about it.
    throw new FuzzFailure(
      [
        `[${op.operationId}/${plan.property}] ${fatal.length} finding(s):`,
        ...fatal.map((violation) => `  - ${violation.check}: ${violation.message}`),
        `expectation: ${JSON.stringify(plan.expect)}`,
        ...(plan.mutation ? [`mutation: ${preview(plan.mutation, 400)}`] : []),
        `request:\n  ${request.describe()}`,
        `response: ${result.status} ${result.contentType}\n  ${result.text.slice(0, 1500)}`,
      ].join('\n'),
    );
  }
}

/** Runs one property of one operation with fast-check; failures carry seed, path and the request. */
export async function runProperty(ctx: OpContext, property: PropertyName): Promise<void> {
  const seed = process.env['FUZZ_SEED'] !== undefined ? Number(process.env['FUZZ_SEED']) : randomInt(2 ** 31);
  const path = process.env['FUZZ_PATH'];
  await ctx.hints.prepare?.(ctx.world, property);
  const arb = planArb(ctx, property);
  try {
    await fc.assert(
      fc.asyncProperty(arb, (plan) => runCase(ctx, plan)),
      {
        numRuns: runsFor(property),
        seed,
        ...(path ? { path } : {}),
        endOnFailure: process.env['FUZZ_SHRINK'] === '0',
      },
    );
  } catch (error) {
    const cause = (error as Error).cause;
    const message = `${(error as Error).message}${cause instanceof Error && !(error as Error).message.includes(cause.message) ? `\n\n${cause.message}` : ''}`;
    throw new FuzzFailure(
      `${message}\n\nReplay: FUZZ_OP=${ctx.op.operationId} FUZZ_PROPERTY=${property} FUZZ_SEED=${seed}` +
        `${path ? ` FUZZ_PATH=${path}` : ''} FUZZ_RUNS=${FUZZ_RUNS} FUZZ_RUNS_SECONDARY=${FUZZ_RUNS_SECONDARY} (dialect ${ctx.world.dialect}; FUZZ_SHRINK=0 skips shrinking)`,
    );
  }
}
