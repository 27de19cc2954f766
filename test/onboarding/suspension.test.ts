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
import { adminHeaders, adminPost, currentAdminDocument, partnerRecord } from '../support/admin.js';
import { type AppContext, DIALECTS, TEST_ADMIN_KEY, useApp } from '../support/app.js';
import { assertError, until } from '../support/assertions.js';
import { customerBody, PDF_BYTES, PNG_BYTES } from '../support/factories.js';
import { listAll } from '../support/http.js';
import { postDocument, postRepresentative, profileOf, submit } from '../support/onboarding.js';
import { createAccount, newPartner, signIn } from '../support/partners.js';
import {
  ADMIN_PARTNERS,
  API_KEYS,
  AUDIT_EVENTS,
  adminDocumentUrl,
  adminPartnerUrl,
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
import { FAST_WEBHOOKS, settled } from '../support/webhooks.js';

/**
 * The webhook worker polls fast, but a failed attempt waits a minute before its retry: an event held
 * back that way stays queued until the test moves the app's clock, whatever the machine's speed.
 */
const RETRY_BASE_MS = 60_000;
const WEBHOOK_ENV = { ...FAST_WEBHOOKS, WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS) };

const REASON = 'Chargeback ratio above the agreed threshold; under investigation.';

interface AuditItem {
  company_id: number | null;
  actor: { type: string; id: string | null };
  action: string;
  target: { type: string; id: string | null } | null;
  metadata: Record<string, unknown> | null;
  request_id: string | null;
  ip: string | null;
}

const suspend = (suite: AppContext, companyId: number | string, body: unknown = { reason: REASON }) =>
  adminPost(suite.t, adminPartnerUrl(companyId, 'suspend'), body);
const reinstate = (suite: AppContext, companyId: number | string) =>
  adminPost(suite.t, adminPartnerUrl(companyId, 'reinstate'));

async function suspended(suite: AppContext, companyId: number, reason = REASON) {
  const response = await suspend(suite, companyId, { reason });
  assert.equal(response.status, 200, response.text);
  return response;
}

/** The operator's audit trail of the partner's onboarding_status changes, oldest first. */
async function statusAudits(suite: AppContext, companyId: number): Promise<AuditItem[]> {
  const items: AuditItem[] = await listAll(suite.t, `${AUDIT_EVENTS}?company_id=${companyId}`, adminHeaders);
  return items.filter((item) => item.action === 'onboarding.status_changed').reverse();
}

/** The partner's onboarding.status_changed outbox events announcing `status`. */
async function statusEvents(suite: AppContext, companyId: number, status: string) {
  return (await outboxEvents(suite.t, companyId)).filter(
    (event) =>
      event.type === 'onboarding.status_changed' && JSON.parse(event.payload).onboarding_status === status,
  );
}

function liveAccountNumbers(suite: AppContext, companyId: number): Promise<string[]> {
  return suite.t.db
    .selectFrom('virtual_accounts')
    .select('account_number')
    .where('partner_id', '=', companyId)
    .where('environment', '=', 'live')
    .orderBy('account_number')
    .execute()
    .then((rows) => rows.map((row) => row.account_number));
}

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

    describe('suspend', () => {
      it('suspends an active partner: 200 with the record suspended, the reason as review_notes, and the partner sees it in business-info', async () => {
        const partner = await newPartner(suite, 'active');
        const response = await suspend(suite, partner.companyId);
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.status, 'success');
        assert.equal(response.body.data.company_id, partner.companyId);
        assert.equal(response.body.data.onboarding_status, 'suspended');
        assert.equal(response.body.data.review_notes, REASON);

        const record = await partnerRecord(suite.t, partner.companyId);
        assert.equal(record.onboarding_status, 'suspended');
        assert.equal(record.review_notes, REASON);
        assert.deepEqual(record.requirements.errors, [{ requirement: 'application', reason: REASON }]);

        const profile = await profileOf(suite.t, partner.token);
        assert.equal(profile.onboarding_status, 'suspended');
        assert.equal(profile.review_notes, REASON);
        assert.equal(profile.environment, 'sandbox');
        assert.deepEqual(profile.requirements.errors, [{ requirement: 'application', reason: REASON }]);
        assert.deepEqual(profile.requirements.currently_due, []);
      });

      it('audits the suspension as the operator (ADMIN_API_KEY: actor api_key) with from, to, reason, request id and IP', async () => {
        const partner = await newPartner(suite, 'active');
        const before = await statusAudits(suite, partner.companyId);
        const response = await adminPost(
          suite.t,
          adminPartnerUrl(partner.companyId, 'suspend'),
          { reason: REASON },
          { 'x-request-id': `suspend-${partner.companyId}` },
        );
        assert.equal(response.status, 200, response.text);

        const after = await statusAudits(suite, partner.companyId);
        assert.equal(after.length, before.length + 1, 'one status change audited');
        const audited = after.at(-1)!;
        assert.deepEqual(audited.actor, { type: 'api_key', id: null, email: null });
        assert.equal(audited.company_id, partner.companyId);
        assert.deepEqual(audited.target, { type: 'partner', id: String(partner.companyId) });
        assert.equal(audited.request_id, `suspend-${partner.companyId}`);
        assert.equal(audited.ip, '127.0.0.1');
        assert.equal(audited.metadata?.['to'], 'suspended');
        assert.deepEqual([audited.metadata?.['from']].flat(), ['active']);
        assert.equal(audited.metadata?.['reason'], REASON);
      });

      it('queues onboarding.status_changed {company_id, suspended, review_notes: reason} for both environments', async () => {
        const partner = await newPartner(suite, 'active');
        assert.deepEqual(await statusEvents(suite, partner.companyId, 'suspended'), []);
        await suspended(suite, partner.companyId);
        const events = await statusEvents(suite, partner.companyId, 'suspended');
        assert.deepEqual(events.map((event) => event.environment).sort(), ['live', 'sandbox']);
        for (const event of events) {
          assert.deepEqual(JSON.parse(event.payload), {
            company_id: partner.companyId,
            onboarding_status: 'suspended',
            review_notes: REASON,
          });
        }
      });
    });

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

    describe('reinstate', () => {
      it('reinstates a suspended partner: 200, active, review_notes cleared; the same live key and live session work again', async () => {
        const partner = await newPartner(suite, 'live');
        const before = await createAccount(suite.t, partner.liveKey);
        await suspended(suite, partner.companyId);
        assertError(
          await suite.t.api.get(VIRTUAL_ACCOUNTS, { token: partner.liveKey }),
          403,
          'PARTNER_SUSPENDED',
        );

        const response = await reinstate(suite, partner.companyId);
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.data.company_id, partner.companyId);
        assert.equal(response.body.data.onboarding_status, 'active');
        assert.equal(response.body.data.review_notes, null);
        assert.deepEqual(response.body.data.requirements.errors, []);

        const listed = await suite.t.api.get(VIRTUAL_ACCOUNTS, { token: partner.liveKey });
        assert.equal(listed.status, 200, listed.text);
        assert.deepEqual(
          listed.body.data.items.map((item: { account_number: string }) => item.account_number),
          [before.account_number],
        );
        const created = await createAccount(suite.t, partner.liveKey);
        assert.equal(created.environment, 'live');

        const profile = await profileOf(suite.t, partner.liveToken);
        assert.equal(profile.environment, 'live');
        assert.equal(profile.onboarding_status, 'active');
        assert.equal(profile.review_notes, null);
        assert.equal((await createAccount(suite.t, partner.liveToken)).environment, 'live');

        const toLive = await suite.t.api.put(ENVIRONMENT, { environment: 'live' }, { token: partner.token });
        assert.equal(toLive.status, 200, toLive.text);
        const liveKey = await suite.t.api.post(
          API_KEYS,
          { name: 'after-reinstatement', environment: 'live' },
          { token: partner.token },
        );
        assert.equal(liveKey.status, 201, liveKey.text);
      });

      it('audits the reinstatement as the operator and queues onboarding.status_changed (active) for both environments', async () => {
        const partner = await newPartner(suite, 'active');
        await suspended(suite, partner.companyId);
        const activeEvents = (await statusEvents(suite, partner.companyId, 'active')).length;

        const response = await adminPost(
          suite.t,
          adminPartnerUrl(partner.companyId, 'reinstate'),
          undefined,
          {
            'x-request-id': `reinstate-${partner.companyId}`,
          },
        );
        assert.equal(response.status, 200, response.text);

        const audited = (await statusAudits(suite, partner.companyId)).at(-1);
        assert.deepEqual(audited?.actor, { type: 'api_key', id: null, email: null });
        assert.deepEqual(audited?.target, { type: 'partner', id: String(partner.companyId) });
        assert.equal(audited?.request_id, `reinstate-${partner.companyId}`);
        assert.equal(audited?.metadata?.['to'], 'active');
        assert.deepEqual([audited?.metadata?.['from']].flat(), ['suspended']);

        const events = (await statusEvents(suite, partner.companyId, 'active')).slice(activeEvents);
        assert.deepEqual(events.map((event) => event.environment).sort(), ['live', 'sandbox']);
        for (const event of events) {
          assert.deepEqual(JSON.parse(event.payload), {
            company_id: partner.companyId,
            onboarding_status: 'active',
            review_notes: null,
          });
        }
      });

      it('does not replay a live request refused during the suspension: after reinstatement its Idempotency-Key creates the account', async () => {
        const partner = await newPartner(suite, 'live');
        await suspended(suite, partner.companyId);
        const body = customerBody();
        const headers = { 'idempotency-key': `order-${partner.companyId}` };
        assertError(
          await suite.t.api.post(CREATE_ACCOUNT, body, { token: partner.liveKey, headers }),
          403,
          'PARTNER_SUSPENDED',
        );
        assert.equal((await reinstate(suite, partner.companyId)).status, 200);

        const created = await suite.t.api.post(CREATE_ACCOUNT, body, { token: partner.liveKey, headers });
        assert.equal(created.status, 201, created.text);
        assert.equal(created.headers.get('idempotent-replayed'), null);
        assert.equal(created.body.data.environment, 'live');
        assert.deepEqual(await liveAccountNumbers(suite, partner.companyId), [
          created.body.data.account_number,
        ]);
      });
    });

    describe('refusals', () => {
      it('answers 409 ONBOARDING_LOCKED to suspending a partner in_progress, under_review, rejected or already suspended, changing nothing', async () => {
        const inProgress = await newPartner(suite, 'signed-in');
        const underReview = await newPartner(suite, 'submitted');
        const rejected = await newPartner(suite, 'rejected');
        const alreadySuspended = await newPartner(suite, 'active');
        await suspended(suite, alreadySuspended.companyId);

        for (const [partner, status] of [
          [inProgress, 'in_progress'],
          [underReview, 'under_review'],
          [rejected, 'rejected'],
          [alreadySuspended, 'suspended'],
        ] as const) {
          const record = await partnerRecord(suite.t, partner.companyId);
          const audits = await statusAudits(suite, partner.companyId);
          const events = await outboxEvents(suite.t, partner.companyId);
          assertError(
            await suspend(suite, partner.companyId, { reason: 'Another reason.' }),
            409,
            'ONBOARDING_LOCKED',
            { what: status },
          );
          const after = await partnerRecord(suite.t, partner.companyId);
          assert.equal(after.onboarding_status, status);
          assert.equal(after.review_notes, record.review_notes, `${status}: review_notes unchanged`);
          assert.equal((await statusAudits(suite, partner.companyId)).length, audits.length);
          assert.equal((await outboxEvents(suite.t, partner.companyId)).length, events.length);
        }
        assert.equal((await partnerRecord(suite.t, alreadySuspended.companyId)).review_notes, REASON);
      });

      it('answers 409 ONBOARDING_LOCKED to reinstating a partner that is not suspended (in_progress, under_review, active, rejected), changing nothing', async () => {
        const inProgress = await newPartner(suite, 'signed-in');
        const underReview = await newPartner(suite, 'submitted');
        const active = await newPartner(suite, 'active');
        const rejected = await newPartner(suite, 'rejected');

        for (const [partner, status] of [
          [inProgress, 'in_progress'],
          [underReview, 'under_review'],
          [active, 'active'],
          [rejected, 'rejected'],
        ] as const) {
          const audits = await statusAudits(suite, partner.companyId);
          const events = await outboxEvents(suite.t, partner.companyId);
          assertError(await reinstate(suite, partner.companyId), 409, 'ONBOARDING_LOCKED', { what: status });
          assert.equal((await partnerRecord(suite.t, partner.companyId)).onboarding_status, status);
          assert.equal((await statusAudits(suite, partner.companyId)).length, audits.length);
          assert.equal((await outboxEvents(suite.t, partner.companyId)).length, events.length);
        }
        assertError(
          await suite.t.api.put(ENVIRONMENT, { environment: 'live' }, { token: rejected.token }),
          403,
          'ONBOARDING_NOT_APPROVED',
        );
      });

      it('answers 422 naming reason to a suspension without a reason, with a blank, non-string or over-long one, changing nothing', async () => {
        const partner = await newPartner(suite, 'active');
        for (const body of [
          undefined,
          {},
          { reason: '' },
          { reason: '   ' },
          { reason: 42 },
          { reason: 'r'.repeat(1001) },
        ]) {
          assertError(
            await adminPost(suite.t, adminPartnerUrl(partner.companyId, 'suspend'), body),
            422,
            'VALIDATION_FAILED',
            {
              fields: ['reason'],
              what: JSON.stringify(body),
            },
          );
        }
        const record = await partnerRecord(suite.t, partner.companyId);
        assert.equal(record.onboarding_status, 'active');
        assert.equal(record.review_notes, null);
        assert.deepEqual(await statusEvents(suite, partner.companyId, 'suspended'), []);

        const longest = await suspend(suite, partner.companyId, { reason: `  ${'r'.repeat(1000)}  ` });
        assert.equal(longest.status, 200, longest.text);
        assert.equal(longest.body.data.review_notes, 'r'.repeat(1000), 'trimmed, 1000 characters accepted');
      });

      it('answers 404 NOT_FOUND to suspending or reinstating an unknown or malformed company_id', async () => {
        for (const companyId of [
          '2000000000',
          '2147483648',
          'abc',
          '0',
          '-1',
          '0x2',
          '2e0',
          '1.5',
          '+2',
          '%202',
        ]) {
          assertError(await suspend(suite, companyId), 404, 'NOT_FOUND', { what: `suspend ${companyId}` });
          assertError(await reinstate(suite, companyId), 404, 'NOT_FOUND', {
            what: `reinstate ${companyId}`,
          });
        }
      });

      it("answers 401 UNAUTHENTICATED to suspend and reinstate without the operator's key (none, wrong, a partner's session or API key), changing nothing", async () => {
        const active = await newPartner(suite, 'live');
        const paused = await newPartner(suite, 'active');
        await suspended(suite, paused.companyId);
        const attempts: Array<Record<string, string>> = [
          {},
          { authorization: 'Bearer wrong-admin-key-0123456789abcdefghijklmnop' },
          { authorization: `Bearer ${active.token}` },
          { authorization: `Bearer ${active.liveKey}` },
          { authorization: TEST_ADMIN_KEY },
        ];
        for (const headers of attempts) {
          assertError(
            await suite.t.api.post(adminPartnerUrl(active.companyId, 'suspend'), undefined, {
              headers,
              json: { reason: REASON },
            }),
            401,
            'UNAUTHENTICATED',
          );
          assertError(
            await suite.t.api.post(adminPartnerUrl(paused.companyId, 'reinstate'), undefined, { headers }),
            401,
            'UNAUTHENTICATED',
          );
        }
        assert.equal((await partnerRecord(suite.t, active.companyId)).onboarding_status, 'active');
        assert.equal((await partnerRecord(suite.t, paused.companyId)).onboarding_status, 'suspended');
      });
    });

    describe('review queue and list filter', () => {
      interface QueueItem {
        company_id: number;
        onboarding_status: string;
        pending_review: string[];
      }
      async function queue(pendingReview: boolean): Promise<Map<number, QueueItem>> {
        const items: QueueItem[] = await listAll(
          suite.t,
          `${ADMIN_PARTNERS}?pending_review=${pendingReview}`,
          adminHeaders,
        );
        return new Map(items.map((item) => [item.company_id, item]));
      }

      it('queues a document an active or a suspended partner uploads until the operator decides it', async () => {
        const active = await newPartner(suite, 'active');
        const paused = await newPartner(suite, 'active');
        await suspended(suite, paused.companyId);
        const pendingBefore = await queue(true);
        assert.equal(pendingBefore.has(active.companyId), false);
        assert.equal(pendingBefore.has(paused.companyId), false, 'suspension alone awaits nothing');

        for (const partner of [active, paused]) {
          const upload = await postDocument(
            suite.t,
            partner.token,
            { document_type: 'tin_certificate' },
            { file: { bytes: PDF_BYTES } },
          );
          assert.equal(upload.status, 201, upload.text);
          assert.equal(upload.body.data.status, 'pending_review');
          const profile = await profileOf(suite.t, partner.token);
          assert.deepEqual(profile.requirements.pending_review, ['documents.tin_certificate']);
        }
        assert.equal((await profileOf(suite.t, paused.token)).onboarding_status, 'suspended');

        const pending = await queue(true);
        assert.deepEqual(pending.get(active.companyId), {
          ...pending.get(active.companyId),
          onboarding_status: 'active',
          pending_review: ['documents.tin_certificate'],
        });
        assert.deepEqual(pending.get(paused.companyId), {
          ...pending.get(paused.companyId),
          onboarding_status: 'suspended',
          pending_review: ['documents.tin_certificate'],
        });
        assert.equal((await queue(false)).has(paused.companyId), false);

        const activeDocument = await currentAdminDocument(suite.t, active.companyId, 'tin_certificate');
        const approved = await adminPost(
          suite.t,
          adminDocumentUrl(active.companyId, activeDocument.id, 'approve'),
        );
        assert.equal(approved.status, 200, approved.text);
        const pausedDocument = await currentAdminDocument(suite.t, paused.companyId, 'tin_certificate');
        const rejected = await adminPost(
          suite.t,
          adminDocumentUrl(paused.companyId, pausedDocument.id, 'reject'),
          {
            reason: 'Expired certificate.',
          },
        );
        assert.equal(rejected.status, 200, rejected.text);

        const decided = await queue(true);
        assert.equal(decided.has(active.companyId), false, 'decided: out of the queue');
        assert.equal(decided.has(paused.companyId), false, 'decided: out of the queue');
        assert.ok((await queue(false)).has(paused.companyId));
        const profile = await profileOf(suite.t, paused.token);
        assert.deepEqual(profile.requirements.pending_review, []);
        assert.ok(
          profile.requirements.errors.some(
            (entry: { requirement: string; reason: string }) =>
              entry.requirement === 'documents.tin_certificate' && entry.reason === 'Expired certificate.',
          ),
          JSON.stringify(profile.requirements),
        );
        assert.equal(profile.onboarding_status, 'suspended', 'a document decision does not reinstate');
      });

      it("queues a suspended partner's new representative (its ID as valid_id), and takes its address but not identity fields", async () => {
        const partner = await newPartner(suite, 'active');
        await suspended(suite, partner.companyId);
        const saved = await postRepresentative(
          suite.t,
          partner.token,
          { first_name: 'Bisi', last_name: 'Adeyemi' },
          { id_file: { bytes: PNG_BYTES, name: 'id.png', type: 'image/png' } },
        );
        assert.equal(saved.status, 200, saved.text);
        assert.deepEqual((await queue(true)).get(partner.companyId)?.pending_review, ['documents.valid_id']);

        const address = await suite.t.api.put(
          BUSINESS_INFO,
          { address: '3 Broad Street, Lagos' },
          { token: partner.token },
        );
        assert.equal(address.status, 200, address.text);
        assert.equal(address.body.data.address, '3 Broad Street, Lagos');
        assertError(
          await suite.t.api.put(BUSINESS_INFO, { rc_number: 'RC7654321' }, { token: partner.token }),
          409,
          'ONBOARDING_LOCKED',
        );
        const profile = await profileOf(suite.t, partner.token);
        assert.equal(profile.onboarding_status, 'suspended');
        assert.equal(profile.rc_number, 'RC1234567');
        assert.deepEqual(profile.requirements.pending_review, ['documents.valid_id']);
        assertError(await submit(suite.t, partner.token), 409, 'ONBOARDING_LOCKED');
      });

      it('finds suspended partners with onboarding_status=suspended, and a reinstated one among the active again', async () => {
        const paused = await newPartner(suite, 'active');
        const active = await newPartner(suite, 'active');
        await suspended(suite, paused.companyId);

        const ids = async (status: string) =>
          (await listAll(suite.t, `${ADMIN_PARTNERS}?onboarding_status=${status}`, adminHeaders)).map(
            (item: { company_id: number; onboarding_status: string }) => {
              assert.equal(item.onboarding_status, status);
              return item.company_id;
            },
          );
        const suspendedIds = await ids('suspended');
        assert.ok(suspendedIds.includes(paused.companyId));
        assert.ok(!suspendedIds.includes(active.companyId));
        assert.ok(!(await ids('active')).includes(paused.companyId));

        assert.equal((await reinstate(suite, paused.companyId)).status, 200);
        assert.ok(!(await ids('suspended')).includes(paused.companyId));
        assert.ok((await ids('active')).includes(paused.companyId));
      });
    });
  });

  describe(`suspend and reinstate without ADMIN_API_KEY [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name, { env: { ADMIN_API_KEY: '' } });

    it('answers 404 NOT_FOUND to suspend and reinstate, with or without a bearer', async () => {
      const partner = await newPartner(suite, 'signed-in');
      for (const headers of [{}, adminHeaders, { authorization: `Bearer ${partner.token}` }]) {
        assertError(
          await suite.t.api.post(
            adminPartnerUrl(partner.companyId, 'suspend'),
            { reason: REASON },
            { headers },
          ),
          404,
          'NOT_FOUND',
        );
        assertError(
          await suite.t.api.post(adminPartnerUrl(partner.companyId, 'reinstate'), undefined, { headers }),
          404,
          'NOT_FOUND',
        );
      }
      assert.equal((await profileOf(suite.t, partner.token)).onboarding_status, 'in_progress');
    });
  });
}
