import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { DIALECTS, useApp } from '../support/app.js';
import { API_PREFIX, OPENAPI } from '../support/paths.js';

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
  describe(`OpenAPI document and docs [${dialect.name}]`, { skip: dialect.skip }, () => {
    const app = useApp(dialect.name);
    // biome-ignore lint/suspicious/noExplicitAny: the document is arbitrary JSON.
    let doc: any;
    before(async () => {
      const response = await app.t.api.get(OPENAPI);
      assert.equal(response.status, 200, response.text);
      doc = response.body;
    });

    it('serves an OpenAPI 3.1.0 document at /baas/api/v1/openapi.json', () => {
      assert.equal(doc.openapi, '3.1.0');
      assert.equal(typeof doc.info?.title, 'string');
      assert.equal(typeof doc.info?.version, 'string');
      assert.equal(typeof doc.paths, 'object');
    });

    it('lists every route the app serves, with its method', () => {
      const served = servedRoutes(app.t.app).filter(
        ({ method, path }) =>
          method !== 'HEAD' && !path.startsWith('/docs') && path !== OPENAPI && !path.includes('*'),
      );
      // Sanity: the parser found the account routes, so an empty list cannot pass.
      for (const path of ['/register', '/verify-otp', '/resend-otp', '/login', '/logout']) {
        assert.ok(
          served.some((route) => route.path === `${API_PREFIX}/client/onboarding${path}`),
          `route tree parse missed ${path}`,
        );
      }
      const missing = served.filter(
        ({ method, path }) => doc.paths?.[openApiPath(path)]?.[method.toLowerCase()] === undefined,
      );
      assert.deepEqual(missing, [], 'routes missing from the OpenAPI document');
    });

    /** Every documented operation as [where, operation]. */
    // biome-ignore lint/suspicious/noExplicitAny: arbitrary JSON.
    const operations = (): Array<[string, any]> =>
      Object.entries<Record<string, unknown>>(doc.paths).flatMap(([path, item]) =>
        HTTP_METHODS.filter((method) => item[method]).map(
          // biome-ignore lint/suspicious/noExplicitAny: arbitrary JSON.
          (method): [string, any] => [`${method.toUpperCase()} ${path}`, item[method]],
        ),
      );
    const statusesOf = (operation: { responses?: Record<string, unknown> }) =>
      Object.keys(operation.responses ?? {});

    it('gives every operation a unique operationId and a success response', () => {
      const operationIds = new Set<string>();
      const all = operations();
      assert.ok(all.length >= 8, `only ${all.length} operations documented`);
      for (const [where, operation] of all) {
        assert.match(String(operation.operationId), /^[a-z][A-Za-z0-9]+$/, `${where}: operationId`);
        assert.ok(!operationIds.has(operation.operationId), `${where}: duplicate operationId`);
        operationIds.add(operation.operationId);
        const statuses = statusesOf(operation);
        assert.ok(
          statuses.some((s) => /^2\d\d$/.test(s)),
          `${where}: no success response in ${statuses}`,
        );
      }
    });

    it('documents at least one error response for every API operation', () => {
      for (const [where, operation] of operations().filter(([where]) => where !== 'GET /healthz')) {
        const statuses = statusesOf(operation);
        assert.ok(
          statuses.some((s) => /^[45]\d\d$/.test(s)),
          `${where}: no error response in ${statuses}`,
        );
      }
    });

    it('documents an error response for the liveness probe too', () => {
      const [, operation] = operations().find(([where]) => where === 'GET /healthz') ?? [];
      assert.ok(operation, 'GET /healthz is documented');
      assert.ok(
        statusesOf(operation).some((s) => /^[45]\d\d$/.test(s)),
        `${statusesOf(operation)}`,
      );
    });

    it('documents the account endpoints with the contract status codes and error codes', () => {
      const account = (path: string) => doc.paths[`${API_PREFIX}/client/onboarding/${path}`].post;
      const errorCodes = (operation: { responses: Record<string, unknown> }, status: string) => {
        const response = operation.responses[status] as
          | { content?: Record<string, { schema?: { properties?: { error_code?: { enum?: string[] } } } }> }
          | undefined;
        return response?.content?.['application/json']?.schema?.properties?.error_code?.enum ?? [];
      };
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

    it('serves human-readable docs as HTML at /docs', async () => {
      const response = await fetch(`${app.t.url}/docs`);
      assert.equal(response.status, 200);
      assert.match(String(response.headers.get('content-type')), /^text\/html/);
      const html = await response.text();
      assert.match(html, /<html/i);
      assert.ok(response.headers.get('x-request-id'));
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    });
  });
}
