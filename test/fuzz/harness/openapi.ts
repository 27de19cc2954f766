/**
 * The OpenAPI document as the fuzzer sees it: every path × method becomes an Operation with its
 * security schemes, request body (JSON or multipart), parameters and documented responses.
 */

export type JsonSchema = Record<string, unknown>;

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, JsonSchema>; securitySchemes?: Record<string, JsonSchema> };
}

export interface ParameterSpec {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: JsonSchema;
}

export interface ResponseSpec {
  status: number;
  contentType: string | undefined;
  /** Every documented media type (a file download documents several). */
  contentTypes: string[];
  schema: JsonSchema | undefined;
}

export type BodyKind = 'json' | 'multipart';

export interface Operation {
  operationId: string;
  method: string;
  /** The path template as documented, e.g. /baas/api/v1/services/team/{memberId}. */
  path: string;
  /** Security scheme names the operation takes (any one of them); empty for a public operation. */
  security: string[];
  bodyKind: BodyKind | undefined;
  bodyRequired: boolean;
  bodySchema: JsonSchema | undefined;
  pathParams: ParameterSpec[];
  queryParams: ParameterSpec[];
  headerParams: ParameterSpec[];
  responses: Map<number, ResponseSpec>;
  /** POST, PUT, PATCH or DELETE. */
  mutating: boolean;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The published document speaks standard JSON Schema; the generators speak the server's own formats:
 * an https-only `uri` is `https-url`, another `uri` is `url`, a `contentMediaType` string is a file,
 * a phone field (its published character pattern) is `phone`.
 */
function inServerFormats(schema: Record<string, unknown>): Record<string, unknown> {
  if (schema['format'] === 'uri') {
    const { pattern, ...rest } = schema;
    return pattern === '^https://' ? { ...rest, format: 'https-url' } : { ...schema, format: 'url' };
  }
  if (schema['pattern'] === '^[0-9+() -]+$') {
    const { pattern: _, ...rest } = schema;
    return { ...rest, format: 'phone' };
  }
  if (typeof schema['contentMediaType'] === 'string' && schema['type'] === 'string') {
    const { contentMediaType: _, ...rest } = schema;
    return { ...rest, format: 'binary' };
  }
  return schema;
}

/** Resolves local `$ref`s (`#/components/...`) recursively, in the server's own formats. */
export function deref(doc: OpenApiDocument, value: unknown, seen = new Set<string>()): unknown {
  if (Array.isArray(value)) return value.map((item) => deref(doc, item, seen));
  if (!isObject(value)) return value;
  const ref = value['$ref'];
  if (typeof ref === 'string' && ref.startsWith('#/')) {
    if (seen.has(ref)) return {};
    let target: unknown = doc;
    for (const segment of ref.slice(2).split('/')) {
      target = isObject(target) ? target[segment.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    }
    return deref(doc, target, new Set([...seen, ref]));
  }
  return inServerFormats(
    Object.fromEntries(Object.entries(value).map(([key, item]) => [key, deref(doc, item, seen)])),
  );
}

export class OperationShapeError extends Error {}

const COOKIE_SCHEMES = new Set(['consoleSession']);

/** Every operation of the document (paths × methods), in document order. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const pathItem = deref(doc, item) as Record<string, unknown>;
    const shared = Array.isArray(pathItem['parameters']) ? (pathItem['parameters'] as unknown[]) : [];
    for (const method of HTTP_METHODS) {
      const raw = pathItem[method];
      if (!isObject(raw)) continue;
      const operationId = raw['operationId'];
      if (typeof operationId !== 'string' || operationId === '') {
        throw new OperationShapeError(`${method.toUpperCase()} ${path} has no operationId`);
      }
      const parameters = [...shared, ...((raw['parameters'] as unknown[] | undefined) ?? [])]
        .filter(isObject)
        .map(
          (parameter): ParameterSpec => ({
            name: String(parameter['name']),
            in: parameter['in'] as ParameterSpec['in'],
            required: parameter['required'] === true,
            schema: (parameter['schema'] as JsonSchema | undefined) ?? {},
          }),
        );
      const schemes = Array.isArray(raw['security'])
        ? [
            ...new Set(
              (raw['security'] as Array<Record<string, unknown>>).flatMap((entry) => Object.keys(entry)),
            ),
          ]
        : [];
      // The fuzzer speaks bearer credentials; the console's cookie sessions (CSRF and all) have their
      // own suites (test/operators). Operations that take only the cookie are in SKIPPED_OPERATIONS.
      const security = schemes.filter((scheme) => !COOKIE_SCHEMES.has(scheme));
      const requestBody = isObject(raw['requestBody']) ? raw['requestBody'] : undefined;
      const content = isObject(requestBody?.['content']) ? requestBody['content'] : {};
      let bodyKind: BodyKind | undefined;
      let bodySchema: JsonSchema | undefined;
      if (isObject(content['application/json'])) {
        bodyKind = 'json';
        bodySchema = (content['application/json'] as Record<string, unknown>)['schema'] as JsonSchema;
      } else if (isObject(content['multipart/form-data'])) {
        bodyKind = 'multipart';
        bodySchema = (content['multipart/form-data'] as Record<string, unknown>)['schema'] as JsonSchema;
      } else if (requestBody) {
        throw new OperationShapeError(
          `${operationId}: request body media types ${Object.keys(content).join(', ')} are not supported by the fuzzer`,
        );
      }
      const responses = new Map<number, ResponseSpec>();
      for (const [status, response] of Object.entries((raw['responses'] as Record<string, unknown>) ?? {})) {
        if (!/^\d{3}$/.test(status) || !isObject(response)) continue;
        const media = isObject(response['content']) ? response['content'] : {};
        const [contentType, entry] = Object.entries(media)[0] ?? [undefined, undefined];
        responses.set(Number(status), {
          status: Number(status),
          contentType,
          contentTypes: Object.keys(media),
          schema: isObject(entry) ? (entry['schema'] as JsonSchema | undefined) : undefined,
        });
      }
      operations.push({
        operationId,
        method: method.toUpperCase(),
        path,
        security,
        bodyKind,
        bodyRequired: requestBody?.['required'] === true,
        bodySchema,
        pathParams: parameters.filter((parameter) => parameter.in === 'path'),
        queryParams: parameters.filter((parameter) => parameter.in === 'query'),
        headerParams: parameters.filter((parameter) => parameter.in === 'header'),
        responses,
        mutating: ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method.toUpperCase()),
      });
    }
  }
  return operations;
}

/** Properties of an object schema (empty for anything else). */
export function propertiesOf(schema: JsonSchema | undefined): Record<string, JsonSchema> {
  return isObject(schema?.['properties']) ? (schema['properties'] as Record<string, JsonSchema>) : {};
}

export function requiredOf(schema: JsonSchema | undefined): string[] {
  return Array.isArray(schema?.['required']) ? (schema['required'] as string[]) : [];
}

/** `type` of a schema as a list (`["number", "string"]`, `["string"]`, or [] when untyped). */
export function typesOf(schema: JsonSchema): string[] {
  const type = schema['type'];
  if (Array.isArray(type)) return type.map(String);
  return typeof type === 'string' ? [type] : [];
}

export const isBinary = (schema: JsonSchema | undefined): boolean =>
  schema !== undefined && schema['format'] === 'binary';
