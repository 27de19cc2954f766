import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { partnerRecord } from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError, until } from '../support/assertions.js';
import { customerBody, PDF_BYTES } from '../support/factories.js';
import { listAll } from '../support/http.js';
import { postDocument, profileOf } from '../support/onboarding.js';
import { createAccount, newPartner, signIn } from '../support/partners.js';
import {
  API_KEYS,
  BUSINESS_INFO,
  CREATE_ACCOUNT,
  creditUrl,
  DOCUMENTS,
  ENVIRONMENT,
  LOGOUT,
  SUBMIT,
  TEAM,
  VIRTUAL_ACCOUNTS,
  WEBHOOK,
} from '../support/paths.js';
import { attemptsOf, outboxEvents } from '../support/records.js';
import { settled } from '../support/webhooks.js';
import {
  liveAccountNumbers,
  REASON,
  RETRY_BASE_MS,
  statusEvents,
  suspended,
  WEBHOOK_ENV,
} from './suspension-kit.js';

interface HttpsDelivery {
  id: string;
  body: string;
  /** As the public Standard Webhooks library verified it; undefined if it did not verify. */
  payload: { type: string; timestamp: string; data: Record<string, unknown> } | undefined;
}

/**
 * A live endpoint must be https (even with WEBHOOK_ALLOW_PRIVATE), so this receiver speaks TLS with
 * a throwaway self-signed certificate made by openssl; every delivery is verified with the public
 * `standardwebhooks` library, like the kit's plain-HTTP receiver does.
 */
class HttpsReceiver {
  readonly received: HttpsDelivery[] = [];
  status = 200;
  secret: string | undefined;
  private readonly server: https.Server;

  constructor() {
    const dir = mkdtempSync(path.join(tmpdir(), 'baas-tls-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-keyout',
          path.join(dir, 'key.pem'),
          '-out',
          path.join(dir, 'cert.pem'),
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
          '-addext',
          'subjectAltName=IP:127.0.0.1',
        ],
        { stdio: 'pipe' },
      );
      this.server = https.createServer(
        { key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) },
        (request, response) => {
          const chunks: Buffer[] = [];
          request.on('data', (chunk: Buffer) => chunks.push(chunk));
          request.on('end', () => {
            const body = Buffer.concat(chunks).toString('utf8');
            const headers = {
              'webhook-id': String(request.headers['webhook-id'] ?? ''),
              'webhook-timestamp': String(request.headers['webhook-timestamp'] ?? ''),
              'webhook-signature': String(request.headers['webhook-signature'] ?? ''),
            };
            let payload: HttpsDelivery['payload'];
            try {
              payload = this.secret
                ? (new Webhook(this.secret).verify(body, headers) as HttpsDelivery['payload'])
                : undefined;
            } catch {
              payload = undefined;
            }
            this.received.push({ id: headers['webhook-id'], body, payload });
            response.writeHead(this.status, { 'content-type': 'text/plain' }).end('ok');
          });
        },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  async start(test: TestContext): Promise<this> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    test.after(() => {
      this.server.closeAllConnections();
      return new Promise<void>((resolve) => this.server.close(() => resolve()));
    });
    return this;
  }

  get url(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }
}

/**
 * The app's sender verifies certificates against the system's roots, which a test cannot extend in a
 * running Node 20 process; for this test only, this process's TLS clients accept the receiver's
 * self-signed certificate (the app's code path is unchanged: https, the guard, the signature).
 */
function acceptSelfSignedCertificates(test: TestContext): void {
  const previous = process.env['NODE_TLS_REJECT_UNAUTHORIZED'];
  process.env['NODE_TLS_REJECT_UNAUTHORIZED'] = '0';
  test.after(() => {
    if (previous === undefined) delete process.env['NODE_TLS_REJECT_UNAUTHORIZED'];
    else process.env['NODE_TLS_REJECT_UNAUTHORIZED'] = previous;
  });
}

for (const dialect of DIALECTS) {
  describe(`suspending and reinstating a partner [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name, { env: WEBHOOK_ENV });

    describe('credentials while suspended', () => {
      it('refuses the live API key on /services/* with 403 PARTNER_SUSPENDED, creating nothing', async () => {
        const partner = await newPartner(suite, 'live');
        const existing = await createAccount(suite.t, partner.liveKey);
        await suspended(suite, partner.companyId);

        const token = partner.liveKey;
        const requests: Array<[string, string, Record<string, unknown>?]> = [
          ['GET', VIRTUAL_ACCOUNTS],
          ['GET', `${VIRTUAL_ACCOUNTS}/${existing.account_number}`],
          ['POST', CREATE_ACCOUNT, customerBody()],
          ['GET', WEBHOOK],
          ['GET', TEAM],
        ];
        for (const [method, url, json] of requests) {
          assertError(
            await suite.t.api.request(method, url, { token, ...(json ? { json } : {}) }),
            403,
            'PARTNER_SUSPENDED',
            { what: `${method} ${url}` },
          );
        }
        assertError(
          await suite.t.api.post(CREATE_ACCOUNT, customerBody(), {
            token,
            headers: { 'idempotency-key': `suspended-${partner.companyId}` },
          }),
          403,
          'PARTNER_SUSPENDED',
        );
        assert.deepEqual(await liveAccountNumbers(suite, partner.companyId), [existing.account_number]);
      });

      it('refuses a live session on /services/* and on dashboard endpoints with 403 PARTNER_SUSPENDED, changing nothing', async () => {
        const partner = await newPartner(suite, 'live');
        await suspended(suite, partner.companyId);
        const token = partner.liveToken;
        const json: Array<[string, string, Record<string, unknown>?]> = [
          ['GET', VIRTUAL_ACCOUNTS],
          ['POST', CREATE_ACCOUNT, customerBody()],
          ['GET', API_KEYS],
          ['POST', API_KEYS, { name: 'during-suspension', environment: 'sandbox' }],
          ['GET', TEAM],
          ['GET', WEBHOOK],
          ['GET', BUSINESS_INFO],
          ['PUT', BUSINESS_INFO, { address: '1 Suspended Close, Lagos' }],
          ['POST', SUBMIT],
        ];
        for (const [method, url, body] of json) {
          assertError(
            await suite.t.api.request(method, url, { token, ...(body ? { json: body } : {}) }),
            403,
            'PARTNER_SUSPENDED',
            { what: `${method} ${url}` },
          );
        }
        assertError(
          await postDocument(suite.t, token, { document_type: 'other' }, { file: { bytes: PDF_BYTES } }),
          403,
          'PARTNER_SUSPENDED',
          { what: `POST ${DOCUMENTS}` },
        );

        const profile = await profileOf(suite.t, partner.token);
        assert.notEqual(profile.address, '1 Suspended Close, Lagos');
        assert.ok(
          !profile.documents.some(
            (document: { document_type: string }) => document.document_type === 'other',
          ),
        );
        const keys = await listAll(suite.t, API_KEYS, partner.token);
        assert.ok(!keys.some((key: { name: string }) => key.name === 'during-suspension'));
        assert.deepEqual(await liveAccountNumbers(suite, partner.companyId), []);
      });

      it('lets a live session switch back to sandbox, where it works, but not to live (403 PARTNER_SUSPENDED)', async () => {
        const partner = await newPartner(suite, 'live');
        await suspended(suite, partner.companyId);
        const token = partner.liveToken;

        assertError(
          await suite.t.api.put(ENVIRONMENT, { environment: 'live' }, { token }),
          403,
          'PARTNER_SUSPENDED',
        );
        const back = await suite.t.api.put(ENVIRONMENT, { environment: 'sandbox' }, { token });
        assert.equal(back.status, 200, back.text);
        assert.deepEqual(back.body.data, { environment: 'sandbox' });

        const profile = await profileOf(suite.t, token);
        assert.equal(profile.environment, 'sandbox');
        assert.equal(profile.onboarding_status, 'suspended');
        const account = await createAccount(suite.t, token);
        assert.equal(account.environment, 'sandbox');

        assertError(
          await suite.t.api.put(ENVIRONMENT, { environment: 'live' }, { token }),
          403,
          'PARTNER_SUSPENDED',
        );
        assert.equal((await profileOf(suite.t, token)).environment, 'sandbox', 'still in sandbox');
      });

      it('lets a live session log out: 200, then the token is refused with 401', async () => {
        const partner = await newPartner(suite, 'live');
        await suspended(suite, partner.companyId);
        const logout = await suite.t.api.post(LOGOUT, undefined, { token: partner.liveToken });
        assert.equal(logout.status, 200, logout.text);
        assertError(
          await suite.t.api.get(BUSINESS_INFO, { token: partner.liveToken }),
          401,
          'UNAUTHENTICATED',
        );
        assertError(
          await suite.t.api.put(ENVIRONMENT, { environment: 'sandbox' }, { token: partner.liveToken }),
          401,
          'UNAUTHENTICATED',
        );
        assert.equal((await profileOf(suite.t, partner.token)).onboarding_status, 'suspended');
      });

      it('answers 403 PARTNER_SUSPENDED to switching a sandbox session to live and to creating a live API key, while sandbox keys are still issued', async () => {
        const partner = await newPartner(suite, 'live');
        await suspended(suite, partner.companyId);

        const fresh = await signIn(suite.t, partner);
        for (const token of [partner.token, fresh]) {
          assertError(
            await suite.t.api.put(ENVIRONMENT, { environment: 'live' }, { token }),
            403,
            'PARTNER_SUSPENDED',
          );
          assert.equal((await profileOf(suite.t, token)).environment, 'sandbox');
        }

        const keysBefore = await listAll(suite.t, API_KEYS, partner.token);
        assertError(
          await suite.t.api.post(
            API_KEYS,
            { name: 'new-live', environment: 'live' },
            { token: partner.token },
          ),
          403,
          'PARTNER_SUSPENDED',
        );
        assert.deepEqual(await listAll(suite.t, API_KEYS, partner.token), keysBefore, 'no key was made');

        const sandboxKey = await suite.t.api.post(
          API_KEYS,
          { name: 'new-sandbox', environment: 'sandbox' },
          { token: partner.token },
        );
        assert.equal(sandboxKey.status, 201, sandboxKey.text);
        assert.match(sandboxKey.body.data.key, /^sk_sandbox_/);
        assert.equal((await createAccount(suite.t, sandboxKey.body.data.key)).environment, 'sandbox');
      });

      it('keeps the sandbox working: the sandbox API key and sandbox session create accounts and simulate credits', async () => {
        const partner = await newPartner(suite, 'live');
        await suspended(suite, partner.companyId);

        for (const token of [partner.sandboxKey, partner.token]) {
          const account = await createAccount(suite.t, token);
          assert.equal(account.environment, 'sandbox');
          const credit = await suite.t.api.post(
            creditUrl(account.account_number),
            { amount: '2500.75' },
            { token },
          );
          assert.equal(credit.status, 201, credit.text);
          assert.equal(credit.body.data.account.balance_kobo, 250075);
          const read = await suite.t.api.get(`${VIRTUAL_ACCOUNTS}/${account.account_number}`, { token });
          assert.equal(read.status, 200, read.text);
          assert.equal(read.body.data.balance_kobo, 250075);
        }
        const listed = await listAll(suite.t, VIRTUAL_ACCOUNTS, partner.sandboxKey);
        assert.equal(listed.length, 2);
      });
    });

    describe('webhooks', () => {
      it('still delivers a live event queued before the suspension, and tells the live endpoint of the suspension', async (test) => {
        acceptSelfSignedCertificates(test);
        const receiver = await new HttpsReceiver().start(test);
        const partner = await newPartner(suite, 'live');
        await settled(suite.t, partner.companyId);

        const endpoint = await suite.t.api.put(WEBHOOK, { url: receiver.url }, { token: partner.liveToken });
        assert.equal(endpoint.status, 201, endpoint.text);
        receiver.secret = endpoint.body.data.secret;
        receiver.status = 503;

        const account = await createAccount(suite.t, partner.liveKey);
        const [queued] = (await outboxEvents(suite.t, partner.companyId, 'live')).filter(
          (event) => event.type === 'virtual_account.created',
        );
        assert.ok(queued, 'a live virtual_account.created event');
        const [failed] = await until('the first live attempt', async () => {
          const attempts = await attemptsOf(suite.t, queued.id);
          return attempts.length > 0 && attempts;
        });
        assert.equal(failed?.status_code, 503);
        assert.equal(failed?.succeeded, 0);

        receiver.status = 200;
        await suspended(suite, partner.companyId);
        const [held] = (await outboxEvents(suite.t, partner.companyId, 'live')).filter(
          (event) => event.id === queued.id,
        );
        assert.equal(held?.status, 'pending', 'still queued after the suspension');

        const [notice] = (await statusEvents(suite, partner.companyId, 'suspended')).filter(
          (event) => event.environment === 'live',
        );
        assert.ok(notice);
        await until('the suspension notice on the live endpoint', () =>
          receiver.received.some((delivery) => delivery.id === notice.id),
        );

        suite.t.clock.advance(RETRY_BASE_MS);
        await until('the queued live event to be delivered', async () => {
          const [event] = (await outboxEvents(suite.t, partner.companyId, 'live')).filter(
            (candidate) => candidate.id === queued.id,
          );
          return event?.status === 'delivered';
        });

        const deliveries = receiver.received.filter((delivery) => delivery.id === queued.id);
        assert.equal(deliveries.length, 2, 'the refused attempt, then the delivery');
        const delivered = deliveries.at(-1)!;
        assert.ok(delivered.payload, `the delivery verifies: ${delivered.body}`);
        assert.equal(delivered.payload.type, 'virtual_account.created');
        assert.equal(delivered.payload.data['account_number'], account.account_number);
        assert.ok(
          receiver.received.indexOf(delivered) >
            receiver.received.findIndex((delivery) => delivery.id === notice.id),
          'delivered after the suspension',
        );
        const notified = receiver.received.find((delivery) => delivery.id === notice.id)!;
        assert.deepEqual(notified.payload?.data, {
          company_id: partner.companyId,
          onboarding_status: 'suspended',
          review_notes: REASON,
        });
        assert.equal((await partnerRecord(suite.t, partner.companyId)).onboarding_status, 'suspended');
      });
    });
  });
}
