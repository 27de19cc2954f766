import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { nuban } from '../../src/modules/virtual-accounts/nuban.js';
import { adminHeaders } from '../support/admin.js';
import { DIALECTS, type TestApp, useApp } from '../support/app.js';
import { assertError, until } from '../support/assertions.js';
import { memberBody } from '../support/factories.js';
import type { ApiResponse } from '../support/http.js';
import { listAll } from '../support/http.js';
import { apiDocuments, type OpenApi } from '../support/openapi.js';
import { type Credential, createAccount, newPartner, type PartnerAt } from '../support/partners.js';
import {
  ADMIN_PREFIX,
  API_KEYS,
  accountUrl,
  adminPartnerUrl,
  apiKeyUrl,
  BUSINESS_INFO,
  creditUrl,
  DELIVERIES,
  DOCUMENTS,
  documentFileUrl,
  EVENTS,
  eventUrl,
  INVITATIONS,
  invitationUrl,
  lifecycleUrl,
  memberUrl,
  redeliverUrl,
  retryUrl,
  statementUrl,
  TEAM,
  TRANSFERS,
  transactionsUrl,
  transferUrl,
  USERS,
  userSecondFactorReset,
  userUrl,
  VIRTUAL_ACCOUNTS,
  WEBHOOK,
} from '../support/paths.js';
import { addUser, invite, newAddress } from '../support/users.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Another partner's resource is 404 NOT_FOUND (never 403, never data), data never crosses
 * sandbox/live (docs/partner-guide.md, "Responses and errors"), and the back office takes only
 * ADMIN_API_KEY. The id-taking operations are read from the OpenAPI document, so a new one without a
 * case here fails the coverage test.
 */

interface PartnerData {
  partner: PartnerAt<'live'>;
  memberId: string;
  /** A dashboard user (invited, accepted) and a pending invitation. */
  userId: string;
  invitationId: string;
  sandboxAccount: { id: string; account_number: string; bank_code: string };
  liveAccount: { id: string; account_number: string; bank_code: string };
  transactionId: string;
  /** A sandbox transfer out of the sandbox account. */
  transferId: string;
  attemptId: string;
  eventId: string;
  documentIds: string[];
}

interface Target {
  label: string;
  id: string;
}

interface IdCase {
  /** Targets: A's ids that the case probes. */
  targets(a: PartnerData): Target[];
  /** A same-shaped id that exists nowhere. */
  unknown(target: Target): string;
  request(id: string): { method: string; path: string; json?: unknown };
  /** What partner B's credential must get for partner A's id. */
  expected(credential: Credential): { status: number; code: string };
}

const notFound = () => ({ status: 404, code: 'NOT_FOUND' });
const unknownNumber = (code: string) => nuban(code, String(randomInt(0, 1e9)).padStart(9, '0'));
const accountTargets = (a: PartnerData): Target[] => [
  { label: 'sandbox account', id: a.sandboxAccount.account_number },
  { label: 'live account', id: a.liveAccount.account_number },
];
const unknownAccount = (a: () => PartnerData) => (target: Target) =>
  unknownNumber(
    target.id === a().sandboxAccount.account_number
      ? a().sandboxAccount.bank_code
      : a().liveAccount.bank_code,
  );

/** A case of a dashboard-session operation: an API key is refused before any lookup. */
const sessionOnly = (targets: IdCase['targets'], request: IdCase['request']): IdCase => ({
  targets,
  unknown: () => randomUUID(),
  request,
  expected: (credential) => (credential.kind === 'session' ? notFound() : { status: 403, code: 'FORBIDDEN' }),
});

/** Every id-taking operation outside /admin, keyed `METHOD /path/{param}` as in the OpenAPI document. */
function idCases(a: () => PartnerData): Record<string, IdCase> {
  return {
    [`DELETE ${API_KEYS}/{id}`]: {
      targets: (p) => [
        { label: 'sandbox key', id: p.partner.sandboxKeyId },
        { label: 'live key', id: p.partner.liveKeyId },
      ],
      unknown: () => randomUUID(),
      request: (id) => ({ method: 'DELETE', path: apiKeyUrl(id) }),
      // Key management takes session tokens only: an API key is refused before any lookup.
      expected: (credential) =>
        credential.kind === 'session' ? notFound() : { status: 403, code: 'FORBIDDEN' },
    },
    [`PATCH ${USERS}/{id}`]: sessionOnly(
      (p) => [{ label: 'user', id: p.userId }],
      (id) => ({
        method: 'PATCH',
        path: userUrl(id),
        json: { role: 'viewer' },
      }),
    ),
    [`DELETE ${USERS}/{id}`]: sessionOnly(
      (p) => [{ label: 'user', id: p.userId }],
      (id) => ({
        method: 'DELETE',
        path: userUrl(id),
      }),
    ),
    [`POST ${USERS}/{id}/second-factor/reset`]: sessionOnly(
      (p) => [{ label: 'user', id: p.userId }],
      (id) => ({
        method: 'POST',
        path: userSecondFactorReset(id),
      }),
    ),
    [`DELETE ${INVITATIONS}/{id}`]: sessionOnly(
      (p) => [{ label: 'invitation', id: p.invitationId }],
      (id) => ({
        method: 'DELETE',
        path: invitationUrl(id),
      }),
    ),
    [`POST ${INVITATIONS}/{id}/resend`]: sessionOnly(
      (p) => [{ label: 'invitation', id: p.invitationId }],
      (id) => ({ method: 'POST', path: `${invitationUrl(id)}/resend` }),
    ),
    [`GET ${TEAM}/{memberId}`]: {
      targets: (p) => [{ label: 'member', id: p.memberId }],
      unknown: () => randomUUID(),
      request: (id) => ({ method: 'GET', path: memberUrl(id) }),
      expected: notFound,
    },
    [`PUT ${TEAM}/{memberId}`]: {
      targets: (p) => [{ label: 'member', id: p.memberId }],
      unknown: () => randomUUID(),
      request: (id) => ({
        method: 'PUT',
        path: memberUrl(id),
        json: memberBody({ first_name: 'Mallory', bvn: undefined }),
      }),
      expected: notFound,
    },
    [`DELETE ${TEAM}/{memberId}`]: {
      targets: (p) => [{ label: 'member', id: p.memberId }],
      unknown: () => randomUUID(),
      request: (id) => ({ method: 'DELETE', path: memberUrl(id) }),
      expected: notFound,
    },
    [`GET ${VIRTUAL_ACCOUNTS}/{account_number}`]: {
      targets: accountTargets,
      unknown: unknownAccount(a),
      request: (id) => ({ method: 'GET', path: accountUrl(id) }),
      expected: notFound,
    },
    [`POST ${VIRTUAL_ACCOUNTS}/{account_number}/simulate-credit`]: {
      targets: accountTargets,
      unknown: unknownAccount(a),
      request: (id) => ({ method: 'POST', path: creditUrl(id), json: { amount: 1000 } }),
      // Live credentials are refused before any lookup (a sandbox simulation).
      expected: (credential) =>
        credential.environment === 'sandbox' ? notFound() : { status: 403, code: 'SANDBOX_ONLY' },
    },
    [`GET ${VIRTUAL_ACCOUNTS}/{account_number}/transactions`]: {
      targets: accountTargets,
      unknown: unknownAccount(a),
      request: (id) => ({ method: 'GET', path: transactionsUrl(id) }),
      expected: notFound,
    },
    [`POST ${VIRTUAL_ACCOUNTS}/{account_number}/deactivate`]: {
      targets: accountTargets,
      unknown: unknownAccount(a),
      request: (id) => ({
        method: 'POST',
        path: lifecycleUrl(id, 'deactivate'),
        json: { reason: 'tenancy probe' },
      }),
      expected: notFound,
    },
    [`POST ${VIRTUAL_ACCOUNTS}/{account_number}/reactivate`]: {
      targets: accountTargets,
      unknown: unknownAccount(a),
      request: (id) => ({ method: 'POST', path: lifecycleUrl(id, 'reactivate') }),
      expected: notFound,
    },
    [`POST ${VIRTUAL_ACCOUNTS}/{account_number}/close`]: {
      targets: accountTargets,
      unknown: unknownAccount(a),
      request: (id) => ({
        method: 'POST',
        path: lifecycleUrl(id, 'close'),
        json: { reason: 'tenancy probe' },
      }),
      expected: notFound,
    },
    [`GET ${VIRTUAL_ACCOUNTS}/{account_number}/statement`]: {
      targets: accountTargets,
      unknown: unknownAccount(a),
      request: (id) => ({ method: 'GET', path: statementUrl(id, '2026-01-01', '2026-12-31') }),
      expected: notFound,
    },
    [`GET ${EVENTS}/{id}`]: {
      targets: (p) => [{ label: 'event', id: p.eventId }],
      unknown: () => randomUUID(),
      request: (id) => ({ method: 'GET', path: eventUrl(id) }),
      expected: notFound,
    },
    [`POST ${EVENTS}/{id}/redeliver`]: {
      targets: (p) => [{ label: 'event', id: p.eventId }],
      unknown: () => randomUUID(),
      request: (id) => ({ method: 'POST', path: redeliverUrl(id) }),
      expected: notFound,
    },
    [`GET ${TRANSFERS}/{id}`]: {
      targets: (p) => [{ label: 'transfer', id: p.transferId }],
      unknown: () => randomUUID(),
      request: (id) => ({ method: 'GET', path: transferUrl(id) }),
      expected: notFound,
    },
    [`GET ${DOCUMENTS}/{document_id}/file`]: {
      targets: (p) => [{ label: 'onboarding document', id: p.documentIds[0] ?? '' }],
      unknown: () => randomUUID(),
      request: (id) => ({ method: 'GET', path: documentFileUrl(id) }),
      // Onboarding takes session tokens only: an API key is refused before any lookup.
      expected: (credential) =>
        credential.kind === 'session' ? notFound() : { status: 403, code: 'FORBIDDEN' },
    },
    [`POST ${DELIVERIES}/{id}/retry`]: {
      targets: (p) => [{ label: 'delivery attempt', id: p.attemptId }],
      unknown: () => randomUUID(),
      request: (id) => ({ method: 'POST', path: retryUrl(id) }),
      expected: notFound,
    },
  };
}

function send(t: TestApp, token: string, call: { method: string; path: string; json?: unknown }) {
  return t.api.request(call.method, call.path, {
    token,
    ...(call.json !== undefined ? { json: call.json } : {}),
  });
}

/** Same status and error_code for a foreign id as for one that exists nowhere: no existence oracle. */
function assertSameAnswer(foreign: ApiResponse, unknown: ApiResponse, what: string): void {
  assert.equal(foreign.status, unknown.status, `${what}: ${foreign.text} vs ${unknown.text}`);
  assert.equal(
    foreign.body.error_code,
    unknown.body.error_code,
    `${what}: ${foreign.text} vs ${unknown.text}`,
  );
}

function operationsOf(doc: OpenApi): string[] {
  return Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.keys(operations)
      .filter((method) => ['get', 'put', 'post', 'delete', 'patch'].includes(method))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

for (const dialect of DIALECTS) {
  describe(`tenancy matrix [${dialect.name}]`, { skip: dialect.skip }, () => {
    const app = useApp(dialect.name, {
      env: { WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_TIMEOUT_MS: '2000' },
    });
    let receiver: WebhookReceiver;
    let doc: OpenApi;
    let a: PartnerData;
    let b: PartnerData;

    /** A partner with a member, accounts in both environments, a sandbox credit and delivery attempt. */
    async function populate(partner: PartnerAt<'live'>, withWebhook: boolean): Promise<PartnerData> {
      if (withWebhook) {
        const endpoint = await app.t.api.put(WEBHOOK, { url: receiver.url }, { token: partner.sandboxKey });
        assert.equal(endpoint.status, 201, endpoint.text);
        receiver.secret = endpoint.body.data.secret;
      }
      const member = await app.t.api.post(TEAM, memberBody(), { token: partner.token });
      assert.equal(member.status, 201, member.text);
      const sandbox = await createAccount(app.t, partner.sandboxKey);
      const live = await createAccount(app.t, partner.liveKey);
      const credit = await app.t.api.post(
        creditUrl(sandbox.account_number),
        { amount: '2500.75', narration: 'tenancy' },
        { token: partner.token },
      );
      assert.equal(credit.status, 201, credit.text);
      const transfer = await app.t.api.post(
        TRANSFERS,
        {
          source_account_number: sandbox.account_number,
          amount: '100.00',
          bank_code: '000013',
          // Ends 05: the sandbox bank fails it, so the account's balance stays what was credited.
          account_number: '0123456705',
          reference: 'tenancy-probe',
        },
        { token: partner.sandboxKey },
      );
      assert.equal(transfer.status, 202, transfer.text);
      await until(
        'the sandbox bank failed the transfer',
        async () =>
          (await app.t.api.get(transferUrl(transfer.body.data.id), { token: partner.sandboxKey })).body.data
            .status === 'failed' || undefined,
        10_000,
      );
      // Every sandbox event delivered once, so the matrix's probes can count the attempts that follow.
      const attempt = withWebhook
        ? await until(
            'a delivery attempt of the last sandbox event',
            async () => {
              // Deliveries go out in order: once the last event (transfer.failed) has an attempt, all have.
              const [last] = await listAll(app.t, `${EVENTS}?type=transfer.failed`, partner.sandboxKey);
              const attempts = await listAll(app.t, DELIVERIES, partner.sandboxKey);
              return attempts.find((attempt) => attempt.event_id === last?.id);
            },
            10_000,
          )
        : { id: randomUUID(), event_id: 'none' };
      const record = await app.t.api.get(adminPartnerUrl(partner.companyId), {
        headers: adminHeaders,
      });
      assert.equal(record.status, 200, record.text);
      const user = await addUser(app, partner.token, 'developer');
      const invitation = await invite(app.t, partner.token, newAddress('pending'), 'viewer');
      return {
        partner,
        memberId: member.body.data.id,
        userId: user.id,
        invitationId: invitation.id,
        sandboxAccount: sandbox,
        liveAccount: live,
        transactionId: credit.body.data.transaction.id,
        transferId: transfer.body.data.id,
        attemptId: attempt.id,
        eventId: attempt.event_id,
        documentIds: (record.body.data.documents as Array<{ id: string }>).map((document) => document.id),
      };
    }

    /** Every identifier of A that must never appear in anything B can read. */
    const secretsOfA = () => [
      a.memberId,
      a.userId,
      a.invitationId,
      a.partner.sandboxKeyId,
      a.partner.liveKeyId,
      a.sandboxAccount.id,
      a.sandboxAccount.account_number,
      a.liveAccount.id,
      a.liveAccount.account_number,
      a.transactionId,
      a.transferId,
      a.attemptId,
      a.eventId,
      a.partner.email,
      ...a.documentIds,
    ];

    before(async () => {
      receiver = await new WebhookReceiver().start();
      doc = (await apiDocuments(app.t)).all;
      a = await populate(await newPartner(app, 'live', { business_name: 'Alpha Tenancy Ltd' }), true);
      b = await populate(await newPartner(app, 'live', { business_name: 'Bravo Tenancy Ltd' }), false);
      assert.ok(a.documentIds.length >= 3, 'A has its onboarding documents');
    });
    after(() => receiver?.stop());

    it('has a case for every operation that takes a path id (from the OpenAPI document)', () => {
      const withId = operationsOf(doc).filter((operation) => operation.includes('{'));
      const admin = withId.filter((operation) => operation.includes(ADMIN_PREFIX));
      assert.ok(admin.length >= 5, 'the back office has id-taking operations');
      const cases = idCases(() => a);
      const missing = withId.filter((operation) => !admin.includes(operation) && !(operation in cases));
      assert.deepEqual(missing, [], 'id-taking operations without a tenancy case');
      const stale = Object.keys(cases).filter((operation) => !withId.includes(operation));
      assert.deepEqual(stale, [], 'cases for operations the OpenAPI document does not list');
    });

    it("answers every credential of partner B for each of partner A's ids exactly as for an id that exists nowhere", async () => {
      const cases = idCases(() => a);
      const before = {
        balance: (
          await app.t.api.get(accountUrl(a.sandboxAccount.account_number), { token: a.partner.sandboxKey })
        ).body.data.balance_kobo,
        attempts: (await listAll(app.t, DELIVERIES, a.partner.sandboxKey)).length,
        received: receiver.received.length,
      };
      let probes = 0;
      for (const [operation, idCase] of Object.entries(cases)) {
        for (const credential of b.partner.credentials) {
          for (const target of idCase.targets(a)) {
            const what = `${operation} on A's ${target.label} with B's ${credential.label}`;
            const foreign = await send(app.t, credential.token, idCase.request(target.id));
            const expected = idCase.expected(credential);
            assertError(foreign, expected.status, expected.code, { what: what });
            assert.equal(foreign.body.data, undefined, `${what}: an error carries no data`);
            for (const secret of secretsOfA())
              assert.ok(!foreign.text.includes(secret), `${what} leaks ${secret}`);
            const unknown = await send(app.t, credential.token, idCase.request(idCase.unknown(target)));
            assertSameAnswer(foreign, unknown, what);
            probes += 1;
          }
        }
      }
      assert.equal(
        probes,
        4 * (2 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 2 + 2 + 2 + 2 + 2 + 2 + 2 + 1 + 1 + 1 + 1 + 1 + 1),
      );

      // Nothing of A's changed: member, keys, ledger, delivery log.
      const member = await app.t.api.get(memberUrl(a.memberId), { token: a.partner.liveKey });
      assert.equal(member.status, 200, member.text);
      assert.equal(member.body.data.first_name, 'Chidi');
      for (const key of [a.partner.sandboxKey, a.partner.liveKey]) {
        assert.equal(
          (await app.t.api.get(VIRTUAL_ACCOUNTS, { token: key })).status,
          200,
          'A’s key still works',
        );
      }
      const account = await app.t.api.get(accountUrl(a.sandboxAccount.account_number), {
        token: a.partner.sandboxKey,
      });
      assert.equal(account.body.data.balance_kobo, before.balance);
      assert.equal(before.balance, 250075);
      assert.equal((await listAll(app.t, DELIVERIES, a.partner.sandboxKey)).length, before.attempts);
      assert.equal(receiver.received.length, before.received, 'no delivery was retried for B');
    });

    it("never shows partner A's rows in partner B's lists, while B's own rows are there", async () => {
      for (const credential of b.partner.credentials) {
        const own = credential.environment === 'sandbox' ? b.sandboxAccount : b.liveAccount;
        const lists: Array<{ url: string; mustHold?: string }> = [
          { url: TEAM, mustHold: b.memberId },
          { url: VIRTUAL_ACCOUNTS, mustHold: own.account_number },
          {
            url: transactionsUrl(own.account_number),
            ...(credential.environment === 'sandbox' ? { mustHold: b.transactionId } : {}),
          },
          { url: DELIVERIES },
          { url: EVENTS, mustHold: own.account_number },
          {
            url: TRANSFERS,
            ...(credential.environment === 'sandbox' ? { mustHold: b.transferId } : {}),
          },
          { url: `${DELIVERIES}?event_id=${encodeURIComponent(a.eventId)}` },
        ];
        if (credential.kind === 'session') {
          lists.push({
            url: API_KEYS,
            mustHold: credential.environment === 'sandbox' ? b.partner.sandboxKeyId : b.partner.liveKeyId,
          });
          lists.push({ url: BUSINESS_INFO });
          lists.push({ url: USERS, mustHold: b.userId }, { url: INVITATIONS, mustHold: b.invitationId });
        }
        const unpaged = [BUSINESS_INFO, USERS, INVITATIONS];
        for (const list of lists) {
          const text = unpaged.includes(list.url)
            ? (await app.t.api.get(list.url, { token: credential.token })).text
            : JSON.stringify(await listAll(app.t, list.url, credential.token));
          if (list.mustHold) assert.ok(text.includes(list.mustHold), `${list.url} with ${credential.label}`);
          for (const secret of secretsOfA()) {
            assert.ok(!text.includes(secret), `${list.url} with B's ${credential.label} shows A's ${secret}`);
          }
        }
        const filtered = await listAll(
          app.t,
          `${DELIVERIES}?event_id=${encodeURIComponent(a.eventId)}`,
          credential.token,
        );
        assert.deepEqual(filtered, [], `B's ${credential.label} filtered by A's event id`);
      }
      const profile = await app.t.api.get(BUSINESS_INFO, { token: b.partner.token });
      assert.equal(profile.body.data.company_id, b.partner.companyId);
    });

    it('keeps sandbox credentials away from live data and live credentials away from sandbox data', async () => {
      const { partner } = a;
      for (const credential of partner.credentials) {
        const mine = credential.environment === 'sandbox' ? a.sandboxAccount : a.liveAccount;
        const other = credential.environment === 'sandbox' ? a.liveAccount : a.sandboxAccount;
        const what = `A's ${credential.label}`;
        const read = await app.t.api.get(accountUrl(mine.account_number), { token: credential.token });
        assert.equal(read.status, 200, `${what} reads its own environment's account: ${read.text}`);
        assertError(
          await app.t.api.get(accountUrl(other.account_number), { token: credential.token }),
          404,
          'NOT_FOUND',
          { what: `${what} GET other environment's account` },
        );
        assertError(
          await app.t.api.get(transactionsUrl(other.account_number), { token: credential.token }),
          404,
          'NOT_FOUND',
          { what: `${what} transactions of other environment's account` },
        );
        const credit = await app.t.api.post(
          creditUrl(other.account_number),
          { amount: 1 },
          { token: credential.token },
        );
        if (credential.environment === 'sandbox')
          assertError(credit, 404, 'NOT_FOUND', { what: `${what} credit live` });
        else assertError(credit, 403, 'SANDBOX_ONLY', { what: `${what} credit` });

        const accounts = await listAll(app.t, VIRTUAL_ACCOUNTS, credential.token);
        assert.ok(accounts.length > 0);
        assert.deepEqual(
          accounts.filter((account) => account.environment !== credential.environment),
          [],
          `${what} lists accounts of the other environment`,
        );
        assert.ok(accounts.some((account) => account.account_number === mine.account_number));
        assert.ok(!accounts.some((account) => account.account_number === other.account_number));

        const deliveries = await listAll(app.t, DELIVERIES, credential.token);
        const filtered = await listAll(
          app.t,
          `${DELIVERIES}?event_id=${encodeURIComponent(a.eventId)}`,
          credential.token,
        );
        if (credential.environment === 'sandbox') {
          assert.ok(
            deliveries.some((attempt) => attempt.id === a.attemptId),
            `${what} sees its attempt`,
          );
          assert.ok(filtered.length >= 1);
        } else {
          assert.ok(!JSON.stringify(deliveries).includes(a.eventId), `${what} sees sandbox deliveries`);
          assert.deepEqual(filtered, []);
          assertError(
            await app.t.api.post(retryUrl(a.attemptId), undefined, { token: credential.token }),
            404,
            'NOT_FOUND',
            { what: `${what} retries a sandbox attempt` },
          );
          assertError(await app.t.api.get(WEBHOOK, { token: credential.token }), 404, 'NOT_FOUND', {
            what: `${what} reads the sandbox webhook endpoint`,
          });
        }
      }
      // The ledger holds only the one sandbox credit: nothing crossed over.
      const ledger = await app.t.db
        .selectFrom('account_transactions')
        .select(['account_id', 'environment', 'amount_kobo'])
        .where('partner_id', '=', partner.companyId)
        .execute();
      assert.deepEqual(
        ledger.map((row) => ({ ...row, amount_kobo: Number(row.amount_kobo) })),
        [{ account_id: a.sandboxAccount.id, environment: 'sandbox', amount_kobo: 250075 }],
      );
    });

    it('answers 401 UNAUTHENTICATED to a partner session or API key on every back-office operation', async () => {
      // The protected ones: the console's sign-in and set-up steps are public by design.
      const adminOps = operationsOf(doc).filter((operation) => {
        const [method, path] = operation.split(' ') as [string, string];
        return path.includes(ADMIN_PREFIX) && doc.paths[path]?.[method.toLowerCase()]?.security?.length > 0;
      });
      assert.ok(adminOps.length >= 15, adminOps.join('\n'));
      const statusBefore = (
        await app.t.api.get(adminPartnerUrl(a.partner.companyId), { headers: adminHeaders })
      ).body.data.onboarding_status;
      assert.equal(statusBefore, 'active');
      for (const operation of adminOps) {
        const [method, template] = operation.split(' ') as [string, string];
        const path = template
          .replace('{company_id}', String(a.partner.companyId))
          .replace('{document_id}', a.documentIds[0]!)
          .replace('{id}', randomUUID());
        for (const credential of [...a.partner.credentials, ...b.partner.credentials]) {
          const response = await app.t.api.request(method, path, {
            token: credential.token,
            ...(method === 'POST' ? { json: { reason: 'Not the operator.' } } : {}),
          });
          assertError(response, 401, 'UNAUTHENTICATED', { what: `${operation} with a ${credential.label}` });
        }
      }
      const record = await app.t.api.get(adminPartnerUrl(a.partner.companyId), {
        headers: adminHeaders,
      });
      assert.equal(record.status, 200, 'the operator key does work');
      assert.equal(record.body.data.onboarding_status, 'active', 'no partner credential changed A');
      const documents = record.body.data.documents as Array<{ id: string; status: string }>;
      assert.equal(documents.find((document) => document.id === a.documentIds[0])?.status, 'approved');
    });
  });
}
