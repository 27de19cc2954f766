import { readFileSync } from 'node:fs';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { OpenAPIV3_1 } from 'openapi-types';
import { ERROR_REGISTRY } from '../errors/errors.js';
import { projectPath } from '../project-files.js';
import { type Audience, publishDocuments } from './openapi-document.js';

export const DOCS_PREFIX = '/docs';
export const OPENAPI_PATH = '/baas/api/v1/openapi.json';
export const OPERATOR_OPENAPI_PATH = '/baas/api/v1/admin/openapi.json';
/** The back office and the sponsor bank's connector: the operator's document, not the partners'. */
const OPERATOR_PREFIXES = ['/baas/api/v1/admin/', '/baas/api/v1/bank/'];

/** docs/*.md, wherever the code runs from. */
const guide = (name: string) => readFileSync(projectPath(`docs/${name}`), 'utf8').trim();

/** The /docs page's own stylesheet and script (docs-page/): same-origin files, as its CSP wants. */
const docsPageFile = (name: string) =>
  readFileSync(projectPath(`src/platform/http/docs-page/${name}`), 'utf8');

/**
 * The document as /docs shows it. Swagger UI's "Try it out" fills a parameter with its example (it
 * has no option not to), so a list's optional filters would be sent set to the examples: here an
 * optional parameter's example moves into its description instead, and its field starts empty.
 */
export function withoutOptionalExamples(document: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(document) as { paths?: Record<string, Record<string, unknown>> };
  for (const item of Object.values(copy.paths ?? {})) {
    for (const operation of Object.values(item)) {
      const parameters = (operation as { parameters?: unknown } | null)?.parameters;
      if (!Array.isArray(parameters)) continue;
      for (const parameter of parameters as Array<Record<string, unknown>>) {
        if (parameter['required'] === true || parameter['example'] === undefined) continue;
        const example = `Example: \`${String(parameter['example'])}\`.`;
        parameter['description'] = parameter['description']
          ? `${parameter['description']} ${example}`
          : example;
        delete parameter['example'];
      }
    }
  }
  return copy;
}

/** The error-code table of the guide, from the registry itself. */
const errorTable = () =>
  [
    '| HTTP | error_code | meaning |',
    '|---|---|---|',
    ...Object.entries(ERROR_REGISTRY)
      .sort(([, a], [, b]) => a.status - b.status)
      .map(([code, { status, message }]) => `| ${status} | \`${code}\` | ${message} |`),
  ].join('\n');

const CONTACT = { name: 'Partner support', email: 'support@baas.local' };
const LICENSE = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' };

function info(): Record<Audience, Record<string, unknown>> {
  return {
    partner: {
      title: 'BaaS Partner API',
      version: '1.0.0',
      description: guide('partner-guide.md').replace('{{ERROR_TABLE}}', errorTable()),
      contact: CONTACT,
      license: LICENSE,
    },
    operator: {
      title: 'BaaS Back Office API',
      version: '1.0.0',
      description: guide('operator-guide.md'),
      contact: CONTACT,
      license: LICENSE,
    },
  };
}

/** The documents' tags, in the order the docs show them. */
const TAGS: OpenAPIV3_1.TagObject[] = [
  { name: 'Accounts', description: 'Registration, e-mail verification, login and logout.' },
  {
    name: 'Onboarding',
    description: 'Profile, compliance representative, documents, submission, environment.',
  },
  {
    name: 'API keys',
    description: 'Secret keys for server-to-server calls to /services/* (session token only).',
  },
  {
    name: 'Dashboard users',
    description:
      "The business's dashboard users, their roles and invitations (session token only); accepting an invitation.",
  },
  { name: 'Team', description: "The partner's team members (partner-wide, both environments)." },
  {
    name: 'Virtual accounts',
    description: 'Dedicated NUBAN accounts for end users, balances, statements and sandbox credits.',
  },
  {
    name: 'Transfers',
    description:
      'Money out: banks, name enquiry, transfers to any Nigerian bank or to accounts here, their states.',
  },
  {
    name: 'Events',
    description: 'Every webhook-worthy change of the last 30 days, to recover missed deliveries.',
  },
  {
    name: 'Webhooks',
    description: 'Signed event deliveries (Standard Webhooks), retries and the delivery log.',
  },
  {
    name: 'Back office',
    description:
      "The operator's review of partners, the bank's notifications, transfers and the daily report.",
  },
  {
    name: 'Operators',
    description: 'Console sign-in (password and TOTP), set-up from invitations, and operator management.',
  },
  {
    name: 'Bank connector',
    description:
      "What the sponsor bank's connector calls, signed with BANK_CONNECTOR_SECRET: inward transfers and transfer updates.",
  },
  { name: 'Operations', description: 'Health and readiness probes.' },
];

/** How each operation says which credential it takes (route.ts SECURITY). */
const SECURITY_SCHEMES: Record<string, OpenAPIV3_1.SecuritySchemeObject> = {
  sessionToken: { type: 'http', scheme: 'bearer', description: 'Session token from login.' },
  apiKey: { type: 'http', scheme: 'bearer', description: 'API key: sk_sandbox_… or sk_live_…' },
  adminKey: { type: 'http', scheme: 'bearer', description: "The operator's ADMIN_API_KEY." },
  consoleSession: {
    type: 'apiKey',
    in: 'cookie',
    name: '__Host-baas_console',
    description:
      'The console session cookie set by the second sign-in step (named baas_console outside production). ' +
      'State-changing requests also send X-CSRF-Token (from the session) and a same-origin Origin.',
  },
  connectorSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'webhook-signature',
    description:
      "The sponsor bank connector's Standard Webhooks signature: webhook-id, webhook-timestamp (unix seconds, " +
      'within 5 minutes) and webhook-signature (v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">, keyed ' +
      'with the bytes BANK_CONNECTOR_SECRET encodes). See docs/operator-guide.md, "The bank connector".',
  },
};

export async function registerOpenApi(
  app: FastifyInstance,
  options: { webhooks: Record<string, unknown>; operatorDocument: boolean },
): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      // Plain JSON Schema objects from TypeBox: the document types cannot see that they are schemas.
      webhooks: options.webhooks as Record<string, OpenAPIV3_1.PathItemObject>,
      info: { title: 'BaaS Partner API', version: '1.0.0' },
      servers: [{ url: '/', description: 'This server; every path carries its /baas/api/v1 prefix.' }],
      tags: TAGS,
      components: { securitySchemes: SECURITY_SCHEMES },
    },
  });

  let published: Record<Audience, Record<string, unknown>> | undefined;
  const documents = () => {
    published ??= publishDocuments(app.swagger() as unknown as Record<string, unknown>, {
      operatorPrefixes: OPERATOR_PREFIXES,
      info: info(),
    });
    return published;
  };

  // Built once the routes are known, so a schema mistake (two schemas with one title) stops start-up.
  app.addHook('onReady', async () => {
    documents();
  });

  let shown: Record<string, unknown> | undefined;
  await app.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    uiConfig: {
      docExpansion: 'list',
      // Its deep link is a link inside each operation's toggle button: a control within a control.
      deepLinking: false,
      // Without the top bar (a URL box the page does not need) and its unlabelled controls.
      layout: 'BaseLayout',
      // Its highlighter's inline colours fail contrast; plain samples are as readable.
      syntaxHighlight: false,
    },
    theme: {
      title: 'BaaS Partner API reference',
      css: [{ filename: 'docs-page.css', content: docsPageFile('docs-page.css') }],
      js: [{ filename: 'docs-page.js', content: docsPageFile('docs-page.js') }],
    },
    transformSpecification: () => {
      shown ??= withoutOptionalExamples(documents().partner);
      return shown;
    },
    staticCSP: false,
  });
  app.get(
    OPENAPI_PATH,
    { schema: { hide: true }, config: { rateLimit: false } },
    async () => documents().partner,
  );
  if (options.operatorDocument) {
    app.get(
      OPERATOR_OPENAPI_PATH,
      { schema: { hide: true }, config: { rateLimit: false } },
      async () => documents().operator,
    );
  }
}
