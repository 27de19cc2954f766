import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adminHeaders, adminPost, partnerRecord } from '../support/admin.js';
import { DIALECTS, TEST_ADMIN_KEY, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { customerBody } from '../support/factories.js';
import { profileOf } from '../support/onboarding.js';
import { createAccount, newPartner } from '../support/partners.js';
import {
  API_KEYS,
  adminPartnerUrl,
  CREATE_ACCOUNT,
  ENVIRONMENT,
  VIRTUAL_ACCOUNTS,
} from '../support/paths.js';
import { outboxEvents } from '../support/records.js';
import {
  liveAccountNumbers,
  REASON,
  reinstate,
  statusAudits,
  statusEvents,
  suspend,
  suspended,
  WEBHOOK_ENV,
} from './suspension-kit.js';

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
        assert.deepEqual(audited.actor, { type: 'api_key', id: null, name: null, email: null });
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
        assert.deepEqual(audited?.actor, { type: 'api_key', id: null, name: null, email: null });
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
