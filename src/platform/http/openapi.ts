import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { OpenAPIV3_1 } from 'openapi-types';

export const DOCS_PREFIX = '/docs';
export const OPENAPI_PATH = '/baas/api/v1/openapi.json';

const DESCRIPTION = `
Banking-as-a-service partner API: register and verify a partner account, complete KYB onboarding,
manage API keys and team members, and issue dedicated NUBAN virtual accounts to your end users.

**Envelope.** Every response body is \`{status, message, data?, error_code?, errors?}\`. Errors carry a
machine-readable \`error_code\`; validation failures (422) name each field in \`errors\`.

**Input rules.** Unknown body fields are ignored. Strings are trimmed and a string that is blank after
trimming counts as absent (passwords are the exception: taken exactly as sent). E-mails are
lower-cased. Bodies are taken as sent: a number where a string is expected is a 422, not coerced.
JSON bodies are limited to 100 KiB; uploaded files to 5 MiB.

**Authentication.** \`Authorization: Bearer <token>\`, with a session token from login (valid 7200 s;
\`/client/onboarding/*\` and key management take session tokens only) or, on \`/services/*\`, an API key.
A 401 on these endpoints carries \`WWW-Authenticate: Bearer realm="baas"\` (RFC 6750), with
\`, error="invalid_request"\` for a malformed bearer credential and \`, error="invalid_token"\` for a
well-formed one that is not accepted (unknown, revoked or expired).

**Request ids.** Every response carries \`X-Request-Id\` (yours, if you send a sane one). Quote it in
support requests.
`.trim();

export async function registerOpenApi(
  app: FastifyInstance,
  options: { webhooks: Record<string, unknown> },
): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      // Plain JSON Schema objects from TypeBox: the document types cannot see that they are schemas.
      webhooks: options.webhooks as Record<string, OpenAPIV3_1.PathItemObject>,
      info: { title: 'BaaS Partner API', version: '1.0.0', description: DESCRIPTION },
      servers: [{ url: '/', description: 'This server; every path carries its /baas/api/v1 prefix.' }],
      tags: [
        { name: 'Accounts', description: 'Registration, e-mail verification, login and logout.' },
        {
          name: 'Onboarding',
          description: 'Profile, compliance representative, documents, submission, environment.',
        },
        {
          name: 'API keys',
          description: 'Secret keys for server-to-server calls to /services/* (session token only).',
        },
        { name: 'Team', description: "The partner's team members (partner-wide, both environments)." },
        {
          name: 'Virtual accounts',
          description: 'Dedicated NUBAN accounts for end users, balances and sandbox credits.',
        },
        {
          name: 'Events',
          description: 'Every webhook-worthy change of the last 30 days, to recover missed deliveries.',
        },
        {
          name: 'Webhooks',
          description: 'Signed event deliveries (Standard Webhooks), retries and the delivery log.',
        },
        { name: 'Back office', description: "The operator's review of partners (ADMIN_API_KEY)." },
        { name: 'Operations', description: 'Health and readiness probes.' },
      ],
      components: {
        securitySchemes: {
          sessionToken: { type: 'http', scheme: 'bearer', description: 'Session token from login.' },
          apiKey: { type: 'http', scheme: 'bearer', description: 'API key: sk_sandbox_… or sk_live_…' },
          adminKey: { type: 'http', scheme: 'bearer', description: "The operator's ADMIN_API_KEY." },
        },
      },
    },
  });
  await app.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    uiConfig: { docExpansion: 'list', deepLinking: true },
    staticCSP: false,
  });
  app.get(OPENAPI_PATH, { schema: { hide: true }, config: { rateLimit: false } }, async () => app.swagger());
}
