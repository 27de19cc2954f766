import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { apiDocuments, type OpenApi } from '../support/openapi.js';
import { type Environment, newPartner, signIn } from '../support/partners.js';
import { addUser, type Role } from '../support/users.js';

/**
 * The roles × endpoints matrix (docs/decisions.md, "Dashboard users and roles"): every operation a
 * dashboard session can call is read from the app's OpenAPI document with the access it declares, and
 * every role lacking that access gets 403 FORBIDDEN in both environments, before anything else is
 * looked at. The grants below are the table of the decision, written out here, not read from the code.
 */
const GRANTS: Record<string, Partial<Record<Role, 'always' | 'sandbox'>>> = {
  read: { owner: 'always', admin: 'always', developer: 'always', finance: 'always', viewer: 'always' },
  onboarding: { owner: 'always', admin: 'always' },
  officers: { owner: 'always', admin: 'always' },
  keys: { owner: 'always', admin: 'always', developer: 'always' },
  webhooks: { owner: 'always', admin: 'always', developer: 'always' },
  money: { owner: 'always', admin: 'always', developer: 'sandbox', finance: 'always' },
  users: { owner: 'always', admin: 'always' },
  owner: { owner: 'always' },
};

const holds = (role: Role, access: string, environment: Environment) => {
  const grant = GRANTS[access]?.[role];
  return grant === 'always' || (grant === 'sandbox' && environment === 'sandbox');
};

const ACCESS_NOTE = /Dashboard roles \(access `([a-z]+)`\)/;

interface Operation {
  method: string;
  template: string;
  access: string | undefined;
}

/** Every operation a dashboard session may call (security sessionToken), with its declared access. */
function sessionOperations(doc: OpenApi): Operation[] {
  return Object.entries(doc.paths).flatMap(([template, operations]) =>
    Object.entries(
      operations as Record<string, { security?: Array<Record<string, unknown>>; description?: string }>,
    )
      .filter(([, operation]) => operation.security?.some((requirement) => 'sessionToken' in requirement))
      .map(([method, operation]) => ({
        method: method.toUpperCase(),
        template,
        access: ACCESS_NOTE.exec(operation.description ?? '')?.[1],
      })),
  );
}

const pathOf = (template: string) =>
  template.replace(/\{account_number\}/g, '0123456789').replace(/\{[a-z_A-Z]+\}/g, () => randomUUID());

for (const dialect of DIALECTS) {
  describe(`roles × endpoints matrix [${dialect.name}]`, { skip: dialect.skip }, () => {
    const ctx = useApp(dialect.name);
    let operations: Operation[];
    const tokens = {} as Record<Role, Record<Environment, string>>;

    before(async () => {
      operations = sessionOperations((await apiDocuments(ctx.t)).partner);
      const owner = await newPartner(ctx, 'live');
      tokens.owner = { sandbox: owner.token, live: owner.liveToken };
      for (const role of ['admin', 'developer', 'finance', 'viewer'] as const) {
        const user = await addUser(ctx, owner.token, role);
        tokens[role] = { sandbox: user.token, live: await signIn(ctx.t, user, 'live') };
      }
    });

    it('reads the operations from the OpenAPI document, and every one declares an access', () => {
      assert.ok(operations.length >= 40, `only ${operations.length} session operations`);
      const undeclared = operations.filter((operation) => !operation.access || !GRANTS[operation.access]);
      assert.deepEqual(
        undeclared.map((operation) => `${operation.method} ${operation.template}`),
        [],
        'operations without a known access',
      );
    });

    it('answers 403 FORBIDDEN, naming the role, to every role lacking the access, in sandbox and live', async () => {
      let refused = 0;
      for (const operation of operations) {
        for (const role of ['admin', 'developer', 'finance', 'viewer'] as const) {
          for (const environment of ['sandbox', 'live'] as const) {
            if (holds(role, operation.access!, environment)) continue;
            const response = await ctx.t.api.request(operation.method, pathOf(operation.template), {
              token: tokens[role][environment],
              ...(operation.method === 'GET' || operation.method === 'DELETE' ? {} : { json: {} }),
            });
            const what = `${operation.method} ${operation.template} as ${role} in ${environment}`;
            assertError(response, 403, 'FORBIDDEN', { what });
            assert.match(String(response.body.message), new RegExp(role), what);
            refused++;
          }
        }
      }
      assert.ok(refused >= 60, `only ${refused} refusals`);
    });

    it('lets every role read (GET) what its access allows, in sandbox and live', async () => {
      for (const operation of operations.filter((candidate) => candidate.method === 'GET')) {
        for (const role of ['owner', 'admin', 'developer', 'finance', 'viewer'] as const) {
          for (const environment of ['sandbox', 'live'] as const) {
            if (!holds(role, operation.access!, environment)) continue;
            const response = await ctx.t.api.get(pathOf(operation.template), {
              token: tokens[role][environment],
            });
            const what = `${operation.method} ${operation.template} as ${role} in ${environment}: ${response.text}`;
            assert.ok(!(response.status === 403 && response.body.error_code === 'FORBIDDEN'), what);
            assert.notEqual(response.status, 401, what);
          }
        }
      }
    });

    it('keeps a developer out of live money but lets them move sandbox money', async () => {
      const live = await ctx.t.api.post(
        `${pathOf('/baas/api/v1/services/virtual-account/create')}`,
        {},
        { token: tokens.developer.live },
      );
      assertError(live, 403, 'FORBIDDEN');
      assert.match(String(live.body.message), /sandbox only/);
      const sandbox = await ctx.t.api.post(
        '/baas/api/v1/services/virtual-account/create',
        {},
        {
          token: tokens.developer.sandbox,
        },
      );
      assert.equal(sandbox.status, 422, sandbox.text);
    });
  });
}
