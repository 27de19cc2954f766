import { ERROR_REGISTRY, type ErrorCode } from '../errors/errors.js';
import { extend } from '../objects.js';

type Json = Record<string, unknown>;
type Doc = Json & { paths: Record<string, Record<string, Json>>; components?: Json };

const COMPONENT = '#/components/schemas/';
/** The credentials of the back office; partners' documents do not mention them. */
const OPERATOR_SCHEMES = new Set(['adminKey', 'consoleSession', 'connectorSignature']);
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);
/** A validation-only keyword of ours that is not JSON Schema (`x-trim`, an extension, stays). */
const PRIVATE_KEYWORDS = ['errorMessage'];

/** Examples of the `errors` map, for the codes that carry one. */
const FIELD_ERROR_EXAMPLES: Partial<Record<ErrorCode, Record<string, string[]>>> = {
  VALIDATION_FAILED: { email: ['must be a valid e-mail address'] },
  ONBOARDING_INCOMPLETE: { 'documents.memart': ['missing'], 'representative.kyc': ['not passed'] },
};

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Who reads a document: partners (their API and webhooks) or the operator (back office and probes). */
export type Audience = 'partner' | 'operator';

export const audienceOf = (path: string, operatorPrefixes: readonly string[]): Audience =>
  operatorPrefixes.some((prefix) => path.startsWith(prefix)) || !path.startsWith('/baas/')
    ? 'operator'
    : 'partner';

/**
 * Turns what @fastify/swagger generates from the route schemas into the two published documents:
 * schemas with a `title` become named components referenced by `$ref`, the error envelope is one
 * `Error` component with an example for each code a status can carry, formats and keywords that
 * only our validator knows are rewritten to standard JSON Schema, public operations say
 * `security: []`, and the back office goes into a document of its own.
 */
export function publishDocuments(
  generated: Json,
  options: { operatorPrefixes: readonly string[]; info: Record<Audience, Json> },
): Record<Audience, Json> {
  const source = structuredClone(generated) as Doc;
  const components: Record<string, Json> = {
    Error: errorSchema(),
    ErrorCode: { title: 'ErrorCode', type: 'string', enum: Object.keys(ERROR_REGISTRY) },
  };
  for (const pathItem of Object.values(source.paths)) {
    for (const [method, operation] of Object.entries(pathItem)) {
      if (HTTP_METHODS.has(method)) publishOperation(operation);
    }
  }
  const hoisted = hoist(standardise(source), components) as Doc;
  return {
    partner: documentFor('partner', hoisted, components, options),
    operator: documentFor('operator', hoisted, components, options),
  };
}

function documentFor(
  audience: Audience,
  source: Doc,
  components: Record<string, Json>,
  options: { operatorPrefixes: readonly string[]; info: Record<Audience, Json> },
): Json {
  const paths = Object.fromEntries(
    Object.entries(source.paths).filter(([path]) => audienceOf(path, options.operatorPrefixes) === audience),
  );
  const webhooks = audience === 'partner' ? source['webhooks'] : undefined;
  const used = usedComponents({ paths, webhooks }, components);
  const tagNames = new Set(
    Object.values(paths).flatMap((item) =>
      Object.values(item).flatMap((op) => (op['tags'] as string[]) ?? []),
    ),
  );
  if (webhooks) tagNames.add('Webhooks');
  const sourceComponents = (source.components ?? {}) as Json;
  const securitySchemes = Object.fromEntries(
    Object.entries((sourceComponents['securitySchemes'] ?? {}) as Json).filter(
      ([name]) => OPERATOR_SCHEMES.has(name) === (audience === 'operator'),
    ),
  );
  return {
    openapi: source['openapi'],
    info: options.info[audience],
    servers: source['servers'],
    tags: ((source['tags'] as Array<{ name: string }>) ?? []).filter((tag) => tagNames.has(tag.name)),
    paths,
    ...(webhooks ? { webhooks } : {}),
    components: {
      securitySchemes,
      schemas: Object.fromEntries([...used].sort().map((name) => [name, components[name]])),
    },
  };
}

/** The names of the components a part of the document refers to, followed through components. */
function usedComponents(part: unknown, components: Record<string, Json>): Set<string> {
  const used = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(visit);
      return;
    }
    if (!isObject(value)) return;
    const ref = value['$ref'];
    if (typeof ref === 'string' && ref.startsWith(COMPONENT)) {
      const name = ref.slice(COMPONENT.length);
      if (!used.has(name)) {
        used.add(name);
        visit(components[name]);
      }
    }
    for (const child of Object.values(value)) visit(child);
  };
  visit(part);
  return used;
}

function errorSchema(): Json {
  return {
    title: 'Error',
    type: 'object',
    description: 'The envelope of every error.',
    required: ['status', 'message', 'error_code'],
    properties: {
      status: { type: 'string', const: 'error' },
      message: { type: 'string', description: 'What went wrong, for a person.' },
      error_code: { $ref: `${COMPONENT}ErrorCode` },
      errors: {
        type: 'object',
        description:
          'Field name to messages: which fields failed validation (422 VALIDATION_FAILED) or what is ' +
          'still outstanding (409 ONBOARDING_INCOMPLETE).',
        additionalProperties: { type: 'array', items: { type: 'string' } },
      },
      data: {
        description: 'Present on a few errors only: VIRTUAL_ACCOUNT_EXISTS carries the existing account.',
      },
    },
  };
}

/** Error responses become the Error component with an example per code; public operations say so. */
function publishOperation(operation: Json): void {
  if (!('security' in operation)) operation['security'] = [];
  const responses = (operation['responses'] ?? {}) as Record<string, Json>;
  for (const [status, response] of Object.entries(responses)) {
    if (Number(status) < 400) continue;
    const media = (response['content'] as Record<string, Json> | undefined)?.['application/json'];
    const schema = media?.['schema'] as Json | undefined;
    const codes = ((schema?.['properties'] as Json | undefined)?.['error_code'] as Json | undefined)?.[
      'enum'
    ] as ErrorCode[] | undefined;
    if (!media || !schema || !codes) continue;
    const data = (schema['properties'] as Json)['data'];
    media['schema'] = data
      ? {
          allOf: [{ $ref: `${COMPONENT}Error` }, { type: 'object', properties: { data } }],
        }
      : { $ref: `${COMPONENT}Error` };
    media['examples'] = Object.fromEntries(
      codes.map((code) => [
        code,
        {
          summary: ERROR_REGISTRY[code].message,
          value: {
            status: 'error',
            message: ERROR_REGISTRY[code].message,
            error_code: code,
            ...(FIELD_ERROR_EXAMPLES[code] ? { errors: FIELD_ERROR_EXAMPLES[code] } : {}),
          },
        },
      ]),
    );
  }
}

/** What a phone field may hold as sent (its `phone` format says which of these are phone numbers). */
const PHONE_CHARACTERS = '^[0-9+() -]+$';

/** Rewrites what only our validator understands into standard JSON Schema 2020-12. */
function standardise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(standardise);
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) {
    if (PRIVATE_KEYWORDS.includes(key)) continue;
    out[key] = standardise(child);
  }
  // @fastify/swagger writes a const of the route schemas as a one-value enum: the webhooks too.
  if ('const' in out) {
    out['enum'] = [out['const']];
    delete out['const'];
  }
  switch (out['format']) {
    case 'https-url':
      out['format'] = 'uri';
      out['pattern'] ??= '^https://';
      break;
    case 'url':
      out['format'] = 'uri';
      break;
    case 'binary':
      delete out['format'];
      out['contentMediaType'] = 'application/octet-stream';
      break;
    // No standard format names a phone number: the characters it may hold, its rules in the description.
    case 'phone':
      delete out['format'];
      out['pattern'] ??= PHONE_CHARACTERS;
      break;
  }
  return out;
}

/**
 * Replaces every schema with a `title` by a `$ref` to a component of that name, innermost first. A
 * nullable one (`type: [T, "null"]`) refers to the non-null component. The same title on two
 * different schemas is a mistake in the route schemas and stops the document from being built.
 */
function hoist(value: unknown, components: Record<string, Json>): unknown {
  if (Array.isArray(value)) return value.map((child) => hoist(child, components));
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) out[key] = hoist(child, components);
  const title = out['title'];
  if (typeof title !== 'string') return out;
  const { nullable, schema } = splitNull(out);
  const known = components[title];
  if (known && canonical(known) !== canonical(schema)) {
    throw new Error(
      `two different schemas are both titled ${title}:\n${JSON.stringify(known)}\n${JSON.stringify(schema)}`,
    );
  }
  components[title] = schema;
  const ref = { $ref: `${COMPONENT}${title}` };
  return nullable ? { anyOf: [ref, { type: 'null' }] } : ref;
}

function splitNull(schema: Json): { nullable: boolean; schema: Json } {
  const type = schema['type'];
  if (!Array.isArray(type) || !type.includes('null')) return { nullable: false, schema };
  const rest = type.filter((name) => name !== 'null');
  const copy: Json = extend(schema, { type: rest.length === 1 ? rest[0] : rest });
  if (Array.isArray(copy['enum'])) copy['enum'] = (copy['enum'] as unknown[]).filter((item) => item !== null);
  return { nullable: true, schema: copy };
}

/** JSON with sorted keys: two schemas that differ only in key order are the same. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, child: unknown) =>
    isObject(child)
      ? Object.fromEntries(Object.entries(child).sort(([a], [b]) => a.localeCompare(b)))
      : child,
  );
}
