import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { ERROR_REGISTRY } from '../../src/platform/errors/errors.js';
import { withoutOptionalExamples } from '../../src/platform/http/openapi.js';
import { WEB_APP_PREFIXES } from '../../src/platform/http/web-apps.js';
import { DIALECTS, useApp } from '../support/app.js';
import { apiDocuments, type OpenApi } from '../support/openapi.js';
import { ADMIN_PREFIX, API_PREFIX, OPENAPI, OPERATOR_OPENAPI } from '../support/paths.js';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

/**
 * Every (method, path) the running app serves, read from Fastify's route tree
 * (`printRoutes({commonPrefix: false})` prints one node a line, children indented by 4).
 */
export function servedRoutes(app: FastifyInstance): Array<{ method: string; path: string }> {
  const routes: Array<{ method: string; path: string }> = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const marker = line.search(/[├└]── /);
    if (marker < 0) continue;
    const depth = marker / 4;
    const match = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line.slice(marker + 4));
    if (!match) continue;
    stack.length = depth;
    stack.push(match[1]!);
    if (!match[2]) continue;
    const path = stack.join('');
    for (const method of match[2].split(',').map((m) => m.trim())) routes.push({ method, path });
  }
  return routes;
}

/** Fastify's `:param` becomes OpenAPI's `{param}`. */
const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

for (const dialect of DIALECTS) {
  describe(`OpenAPI documents and docs [${dialect.name}]`, { skip: dialect.skip }, () => {
    const app = useApp(dialect.name);
    let partner: OpenApi;
    let operator: OpenApi;
    let all: OpenApi;
    before(async () => {
      ({ partner, operator, all } = await apiDocuments(app.t));
    });

    /** Every documented operation of a document as [where, operation]. */
    // biome-ignore lint/suspicious/noExplicitAny: arbitrary JSON.
    const operations = (doc: OpenApi): Array<[string, any]> =>
      Object.entries<Record<string, unknown>>(doc.paths).flatMap(([path, item]) =>
        HTTP_METHODS.filter((method) => item[method]).map(
          // biome-ignore lint/suspicious/noExplicitAny: arbitrary JSON.
          (method): [string, any] => [`${method.toUpperCase()} ${path}`, item[method]],
        ),
      );
    const statusesOf = (operation: { responses?: Record<string, unknown> }) =>
      Object.keys(operation.responses ?? {});
    /** The error codes a response documents: one example per code. */
    const errorCodes = (operation: { responses: Record<string, unknown> }, status: string): string[] => {
      const response = operation.responses[status] as
        | { content?: Record<string, { examples?: Record<string, unknown> }> }
        | undefined;
      return Object.keys(response?.content?.['application/json']?.examples ?? {});
    };
    /** Every schema object below `value`, with where it is. */
    const schemasIn = (value: unknown, where = '#'): Array<[string, Record<string, unknown>]> => {
      if (Array.isArray(value)) return value.flatMap((item, index) => schemasIn(item, `${where}/${index}`));
      if (typeof value !== 'object' || value === null) return [];
      const object = value as Record<string, unknown>;
      return [
        [where, object],
        ...Object.entries(object).flatMap(([key, item]) => schemasIn(item, `${where}/${key}`)),
      ];
    };

    it('serves OpenAPI 3.1.0 documents for partners and for the operator', () => {
      for (const doc of [partner, operator]) {
        assert.equal(doc.openapi, '3.1.0');
        assert.equal(typeof doc.info?.title, 'string');
        assert.equal(typeof doc.info?.version, 'string');
        assert.equal(typeof doc.info?.license?.name, 'string');
        assert.equal(typeof doc.info?.contact?.email, 'string');
      }
      assert.notEqual(partner.info.title, operator.info.title);
    });

    it("keeps the back office out of the partners' document and in the operator's", () => {
      const partnerPaths = Object.keys(partner.paths);
      assert.deepEqual(
        partnerPaths.filter((path) => path.startsWith(ADMIN_PREFIX) || !path.startsWith(API_PREFIX)),
        [],
      );
      assert.ok(!('adminKey' in (partner.components?.securitySchemes ?? {})));
      assert.ok(partnerPaths.length >= 25, `${partnerPaths.length} partner paths`);
      const operatorPaths = Object.keys(operator.paths);
      assert.ok(operatorPaths.includes(`${ADMIN_PREFIX}partners`));
      assert.ok(operatorPaths.includes('/healthz') && operatorPaths.includes('/readyz'));
      // Besides the back office, the sponsor bank connector's endpoints: operators build the connector.
      assert.deepEqual(
        operatorPaths.filter(
          (path) =>
            path.startsWith(API_PREFIX) &&
            !path.startsWith(ADMIN_PREFIX) &&
            !path.startsWith(`${API_PREFIX}/bank/`),
        ),
        [],
      );
      assert.ok(operatorPaths.includes(`${API_PREFIX}/bank/credit-notifications`));
      assert.ok(operatorPaths.includes(`${API_PREFIX}/bank/transfer-updates`));
      assert.deepEqual(
        partnerPaths.filter((path) => path.startsWith(`${API_PREFIX}/bank/`)),
        [],
      );
      assert.ok(!('connectorSignature' in (partner.components?.securitySchemes ?? {})));
      assert.equal(operator['webhooks'], undefined, 'webhooks are for partners');
      assert.ok(partner['webhooks'], 'partners get the webhooks section');
    });

    it('lists every route the app serves, with its method, in one of the two documents', () => {
      const served = servedRoutes(app.t.app).filter(
        ({ method, path }) =>
          method !== 'HEAD' &&
          !path.startsWith('/docs') &&
          !WEB_APP_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`)) &&
          path !== OPENAPI &&
          path !== OPERATOR_OPENAPI &&
          !path.includes('*'),
      );
      // Sanity: the parser found the account routes, so an empty list cannot pass.
      for (const path of ['/register', '/verify-otp', '/resend-otp', '/login', '/logout']) {
        assert.ok(
          served.some((route) => route.path === `${API_PREFIX}/client/onboarding${path}`),
          `route tree parse missed ${path}`,
        );
      }
      const missing = served.filter(
        ({ method, path }) => all.paths?.[openApiPath(path)]?.[method.toLowerCase()] === undefined,
      );
      assert.deepEqual(missing, [], 'routes missing from the OpenAPI documents');
    });

    it('gives every operation a unique operationId, a description, its security and a success response', () => {
      const operationIds = new Set<string>();
      const every = operations(all);
      assert.ok(every.length >= 40, `only ${every.length} operations documented`);
      for (const [where, operation] of every) {
        assert.match(String(operation.operationId), /^[a-z][A-Za-z0-9]+$/, `${where}: operationId`);
        assert.ok(!operationIds.has(operation.operationId), `${where}: duplicate operationId`);
        operationIds.add(operation.operationId);
        assert.ok(String(operation.description ?? '').length > 20, `${where}: description`);
        assert.ok(Array.isArray(operation.security), `${where}: security declared ([] when public)`);
        const statuses = statusesOf(operation);
        assert.ok(
          statuses.some((s) => /^2\d\d$/.test(s)),
          `${where}: no success response in ${statuses}`,
        );
      }
      const publicOps = every
        .filter(([, operation]) => operation.security.length === 0)
        .map(([where]) => where);
      assert.ok(publicOps.includes(`POST ${API_PREFIX}/client/onboarding/register`));
      assert.ok(!publicOps.includes(`GET ${API_PREFIX}/services/virtual-account`));
    });

    it('documents every error response as the Error component with one example per code, matching the status', () => {
      for (const [where, operation] of operations(all)) {
        const errorStatuses = statusesOf(operation).filter((status) => /^[45]/.test(status));
        assert.ok(errorStatuses.length > 0, `${where}: no error response`);
        for (const status of errorStatuses) {
          const media = operation.responses[status].content['application/json'];
          const refs = JSON.stringify(media.schema);
          assert.ok(refs.includes('"#/components/schemas/Error"'), `${where} ${status}: ${refs}`);
          const codes = errorCodes(operation, status);
          assert.ok(codes.length > 0, `${where} ${status}: no example`);
          for (const code of codes) {
            const expected = ERROR_REGISTRY[code as keyof typeof ERROR_REGISTRY];
            assert.ok(expected, `${where} ${status}: unknown code ${code}`);
            const statusMatches = /X/i.test(status)
              ? String(expected.status)[0] === status[0]
              : String(expected.status) === status;
            assert.ok(statusMatches, `${where}: ${code} is ${expected.status}, documented under ${status}`);
            const example = media.examples[code].value;
            assert.equal(example.status, 'error');
            assert.equal(example.error_code, code);
            assert.equal(
              'errors' in example,
              code === 'VALIDATION_FAILED' || code === 'ONBOARDING_INCOMPLETE',
              `${where} ${code}: only field errors carry an errors map`,
            );
          }
        }
      }
      assert.deepEqual(all.components.schemas.ErrorCode.enum.sort(), Object.keys(ERROR_REGISTRY).sort());
    });

    it("documents the account endpoints with the partner guide's status codes and error codes", () => {
      const account = (path: string) => partner.paths[`${API_PREFIX}/client/onboarding/${path}`]!['post'];
      assert.ok(account('register').responses['201'], 'register answers 201');
      assert.ok(errorCodes(account('register'), '422').includes('VALIDATION_FAILED'));
      const verify = account('verify-otp');
      assert.ok(verify.responses['200']);
      for (const code of ['OTP_INVALID', 'OTP_EXPIRED'])
        assert.ok(errorCodes(verify, '422').includes(code), code);
      assert.ok(errorCodes(verify, '409').includes('ACCOUNT_ALREADY_VERIFIED'));
      assert.ok(errorCodes(verify, '429').includes('OTP_ATTEMPTS_EXCEEDED'));
      const login = account('login');
      assert.ok(errorCodes(login, '401').includes('INVALID_CREDENTIALS'));
      assert.ok(errorCodes(login, '403').includes('ACCOUNT_NOT_VERIFIED'));
      assert.ok(errorCodes(login, '429').includes('RATE_LIMITED'));
      assert.ok(errorCodes(account('resend-otp'), '429').includes('RATE_LIMITED'));
      assert.ok(errorCodes(account('logout'), '401').includes('UNAUTHENTICATED'));
      assert.ok(account('register').requestBody, 'register documents its request body');
    });

    it('names the resources as component schemas and refers to them', () => {
      const schemas = partner.components.schemas;
      for (const name of [
        'VirtualAccount',
        'Transaction',
        'Statement',
        'Event',
        'TeamMember',
        'ApiKey',
        'OnboardingProfile',
        'DeliveryAttempt',
        'Error',
      ]) {
        assert.equal(schemas[name]?.title, name, `components.schemas.${name}`);
      }
      const created = partner.paths[`${API_PREFIX}/services/virtual-account/create`]!['post'];
      const data = created.responses['201'].content['application/json'].schema.properties.data;
      assert.deepEqual(data, { $ref: '#/components/schemas/VirtualAccount' });
      const exists = JSON.stringify(created.responses['409'].content['application/json'].schema);
      assert.ok(
        exists.includes('#/components/schemas/VirtualAccount'),
        'VIRTUAL_ACCOUNT_EXISTS carries the account',
      );
      // Every $ref resolves within its own document.
      for (const doc of [partner, operator]) {
        for (const [where, schema] of schemasIn(doc)) {
          const ref = schema['$ref'];
          if (typeof ref !== 'string') continue;
          const name = ref.replace('#/components/schemas/', '');
          assert.ok(doc.components.schemas[name], `${where}: ${ref} does not resolve`);
        }
      }
      assert.equal(operator.components.schemas.PartnerRecord?.title, 'PartnerRecord');
    });

    it('publishes standard JSON Schema only: no private keywords or formats, files as content media types', () => {
      const standardFormats = new Set(['date-time', 'date', 'email', 'uuid', 'uri']);
      for (const doc of [partner, operator]) {
        for (const [where, schema] of schemasIn(doc)) {
          assert.ok(!('errorMessage' in schema), `${where}: errorMessage`);
          if (typeof schema['format'] === 'string' && !where.includes('/examples/'))
            assert.ok(standardFormats.has(schema['format']), `${where}: format ${schema['format']}`);
        }
      }
      const upload = partner.paths[`${API_PREFIX}/client/onboarding/documents`]!['post'];
      const file = upload.requestBody.content['multipart/form-data'].schema.properties.file;
      assert.equal(file.type, 'string');
      assert.equal(file.contentMediaType, 'application/octet-stream');
      const website =
        partner.paths[`${API_PREFIX}/client/onboarding/business-info`]!['put'].requestBody.content[
          'application/json'
        ].schema.properties.website;
      assert.equal(website.format, 'uri');
      assert.equal(website.pattern, '^https://');
    });

    it('describes every event type in the webhooks section with its named payload', () => {
      // biome-ignore lint/suspicious/noExplicitAny: arbitrary JSON.
      const webhooks = partner['webhooks'] as Record<string, { post: Record<string, any> }>;
      assert.deepEqual(Object.keys(webhooks).sort(), [
        'document.reviewed',
        'onboarding.status_changed',
        'transfer.failed',
        'transfer.reversed',
        'transfer.successful',
        'virtual_account.created',
        'virtual_account.credited',
        'virtual_account.status_changed',
        'webhook.test',
      ]);
      for (const [type, item] of Object.entries(webhooks)) {
        const schema = item.post['requestBody'].content['application/json'].schema;
        const name = schema.$ref.replace('#/components/schemas/', '');
        const payload = partner.components.schemas[name];
        assert.deepEqual(payload.properties.type.enum, [type], `${type}: ${name}`);
        assert.deepEqual(item.post['security'], [], `${type}: signed, not authenticated`);
      }
    });

    it('opens the docs with the guide and the error-code table', () => {
      const description = String(partner.info.description);
      for (const heading of [
        '## Getting started',
        '## Onboarding status',
        '## Authentication',
        '## Webhooks',
        '## Pagination',
      ]) {
        assert.ok(description.includes(heading), heading);
      }
      for (const [code, { status }] of Object.entries(ERROR_REGISTRY)) {
        assert.ok(description.includes(`| ${status} | \`${code}\` |`), `error table row for ${code}`);
      }
      assert.ok(description.includes('timingSafeEqual'), 'a signature verification snippet');
    });

    it("serves human-readable docs as HTML at /docs, from the partners' document", async () => {
      const response = await fetch(`${app.t.url}/docs`);
      assert.equal(response.status, 200);
      assert.match(String(response.headers.get('content-type')), /^text\/html/);
      const html = await response.text();
      assert.match(html, /<html/i);
      assert.ok(response.headers.get('x-request-id'));
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      // The partners' document, but optional parameters' examples in their descriptions: Swagger UI's
      // Try it out would otherwise send them (test/browser/docs-page.test.ts).
      const shown = (await (await fetch(`${app.t.url}/docs/json`)).json()) as OpenApi;
      assert.deepEqual(shown, withoutOptionalExamples(partner));
      const email = (document: OpenApi) =>
        document.paths['/baas/api/v1/services/virtual-account']?.get?.parameters?.find(
          (parameter: { name: string }) => parameter.name === 'email',
        );
      assert.equal(email(partner)?.example, 'ada@example.com');
      assert.equal(email(shown)?.example, undefined);
      assert.match(String(email(shown)?.description), /Example: `ada@example\.com`\.$/);
    });
  });
}
