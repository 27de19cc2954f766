import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { PDF_BYTES } from '../support/factories.js';
import {
  completeOnboarding,
  postDocument,
  postRepresentative,
  profileOf,
  setBusinessType,
  submit,
} from '../support/onboarding.js';
import { newPartner } from '../support/partners.js';
import { auditActions, outboxEvents } from '../support/records.js';

for (const dialect of DIALECTS) {
  describe(`submission and back-office review [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);

    describe('submit', () => {
      it('answers 409 ONBOARDING_INCOMPLETE naming business_type and representative for a fresh application', async () => {
        const partner = await newPartner(suite, 'signed-in');
        const response = await submit(suite.t, partner.token);
        assertError(response, 409, 'ONBOARDING_INCOMPLETE');
        assert.deepEqual(response.body.errors, { business_type: ['missing'], representative: ['missing'] });
      });

      it('names each gap: representative.kyc and each missing checklist document', async () => {
        const partner = await newPartner(suite, 'signed-in');
        await setBusinessType(suite.t, partner.token, 'limited_liability');
        await postRepresentative(suite.t, partner.token, { bvn: '12345678901' });
        await postDocument(
          suite.t,
          partner.token,
          { document_type: 'cac_certificate' },
          { file: { bytes: PDF_BYTES } },
        );
        const response = await submit(suite.t, partner.token);
        assertError(response, 409, 'ONBOARDING_INCOMPLETE');
        assert.deepEqual(Object.keys(response.body.errors ?? {}).sort(), [
          'documents.memart',
          'representative.kyc',
        ]);
        assert.deepEqual(response.body.errors?.['documents.memart'], ['missing']);
        assert.ok((response.body.errors?.['representative.kyc'] ?? []).length > 0);

        const profile = await profileOf(suite.t, partner.token);
        assert.equal(profile.onboarding_status, 'in_progress');
        assert.ok(
          !(await auditActions(suite.t, partner.companyId)).some(
            (event) => event.action === 'onboarding.status_changed',
          ),
        );
        assert.deepEqual(await outboxEvents(suite.t, partner.companyId), []);
      });

      it('moves a complete application to under_review, audits it and queues onboarding.status_changed', async () => {
        const partner = await newPartner(suite, 'signed-in');
        await completeOnboarding(suite.t, partner.token);
        const response = await submit(suite.t, partner.token);
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.data.onboarding_status, 'under_review');
        assert.equal(response.body.data.company_id, partner.companyId);
        assert.deepEqual(response.body.data.requirements.currently_due, []);
        assert.ok(response.body.data.requirements.pending_review.includes('application'));

        const changes = (await auditActions(suite.t, partner.companyId)).filter(
          (event) => event.action === 'onboarding.status_changed',
        );
        assert.equal(changes.length, 1);
        assert.equal(changes[0]?.actor_type, 'user', 'the session acts as its dashboard user');
        assert.equal(JSON.parse(changes[0]?.metadata ?? '{}').to, 'under_review');
        const events = (await outboxEvents(suite.t, partner.companyId)).filter(
          (event) => event.type === 'onboarding.status_changed',
        );
        assert.ok(events.length >= 1);
        for (const event of events) {
          assert.deepEqual(JSON.parse(event.payload), {
            company_id: partner.companyId,
            onboarding_status: 'under_review',
            review_notes: null,
          });
          // The partner has set no webhook endpoint: the event is kept (the events API lists it) and
          // written as skipped, with the reason.
          assert.equal(event.status, 'skipped');
          assert.match(String(event.last_error), /no webhook endpoint/);
        }
      });

      it('answers 409 ONBOARDING_LOCKED to submit while under_review or active', async () => {
        const submitted = await newPartner(suite, 'submitted');
        assertError(await submit(suite.t, submitted.token), 409, 'ONBOARDING_LOCKED');
        const active = await newPartner(suite, 'active');
        assertError(await submit(suite.t, active.token), 409, 'ONBOARDING_LOCKED');
        assert.equal((await profileOf(suite.t, active.token)).onboarding_status, 'active');
      });
    });
  });
}
