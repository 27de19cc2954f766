import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type AdminDocument,
  adminPost,
  currentAdminDocument,
  partnerRecord,
  rejectPartner,
} from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { PDF_BYTES } from '../support/factories.js';
import {
  completeOnboarding,
  postDocument,
  postRepresentative,
  profileOf,
  submit,
} from '../support/onboarding.js';
import { newPartner } from '../support/partners.js';
import { adminDocumentUrl, adminPartnerUrl } from '../support/paths.js';
import { auditActions, outboxEvents } from '../support/records.js';

for (const dialect of DIALECTS) {
  describe(`submission and back-office review [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);

    describe('document decisions', () => {
      it('rejects a document only with a reason, and approves one', async () => {
        const partner = await newPartner(suite, 'submitted');
        const memart = (await currentAdminDocument(suite.t, partner.companyId, 'memart')).id;
        const cac = (await currentAdminDocument(suite.t, partner.companyId, 'cac_certificate')).id;
        assertError(
          await adminPost(suite.t, adminDocumentUrl(partner.companyId, memart, 'reject')),
          422,
          'VALIDATION_FAILED',
          { fields: ['reason'] },
        );
        assertError(
          await adminPost(suite.t, adminDocumentUrl(partner.companyId, memart, 'reject'), {}),
          422,
          'VALIDATION_FAILED',
          { fields: ['reason'] },
        );
        assertError(
          await adminPost(suite.t, adminDocumentUrl(partner.companyId, memart, 'reject'), { reason: '   ' }),
          422,
          'VALIDATION_FAILED',
          { fields: ['reason'] },
        );
        assertError(
          await adminPost(suite.t, adminDocumentUrl(partner.companyId, memart, 'reject'), {
            reason: 'r'.repeat(1001),
          }),
          422,
          'VALIDATION_FAILED',
          { fields: ['reason'] },
        );

        const rejected = await adminPost(suite.t, adminDocumentUrl(partner.companyId, memart, 'reject'), {
          reason: 'Unsigned MEMART.',
        });
        assert.equal(rejected.status, 200, rejected.text);
        assert.equal(rejected.body.data.id, memart);
        assert.equal(rejected.body.data.status, 'rejected');
        assert.equal(rejected.body.data.rejection_reason, 'Unsigned MEMART.');
        assert.ok(!Number.isNaN(Date.parse(rejected.body.data.reviewed_at)));

        const approved = await adminPost(suite.t, adminDocumentUrl(partner.companyId, cac, 'approve'));
        assert.equal(approved.status, 200, approved.text);
        assert.equal(approved.body.data.status, 'approved');
        assert.equal(approved.body.data.rejection_reason, null);

        const profile = await profileOf(suite.t, partner.token);
        const byType = Object.fromEntries(
          profile.documents.map((document: { document_type: string; status: string }) => [
            document.document_type,
            document.status,
          ]),
        );
        assert.equal(byType.memart, 'rejected');
        assert.equal(byType.cac_certificate, 'approved');
      });

      it('answers 409 to deciding an already-decided document', async () => {
        const partner = await newPartner(suite, 'submitted');
        const cac = (await currentAdminDocument(suite.t, partner.companyId, 'cac_certificate')).id;
        assert.equal(
          (await adminPost(suite.t, adminDocumentUrl(partner.companyId, cac, 'approve'))).status,
          200,
        );
        const again = await adminPost(suite.t, adminDocumentUrl(partner.companyId, cac, 'approve'));
        assert.equal(again.status, 409, again.text);
        const flip = await adminPost(suite.t, adminDocumentUrl(partner.companyId, cac, 'reject'), {
          reason: 'changed my mind',
        });
        assert.equal(flip.status, 409, flip.text);
        const record = await partnerRecord(suite.t, partner.companyId);
        assert.equal(
          (record.documents as AdminDocument[]).find((document) => document.id === cac)?.status,
          'approved',
        );
      });

      it('answers 409 to deciding a superseded document', async () => {
        const partner = await newPartner(suite, 'signed-in');
        const first = await postDocument(
          suite.t,
          partner.token,
          { document_type: 'memart' },
          { file: { bytes: PDF_BYTES } },
        );
        await postDocument(
          suite.t,
          partner.token,
          { document_type: 'memart' },
          { file: { bytes: PDF_BYTES } },
        );
        const approve = await adminPost(
          suite.t,
          adminDocumentUrl(partner.companyId, first.body.data.id, 'approve'),
        );
        assert.equal(approve.status, 409, approve.text);
        const reject = await adminPost(
          suite.t,
          adminDocumentUrl(partner.companyId, first.body.data.id, 'reject'),
          {
            reason: 'old',
          },
        );
        assert.equal(reject.status, 409, reject.text);
      });

      it('writes a document.reviewed outbox event and an admin audit event for each decision', async () => {
        const partner = await newPartner(suite, 'submitted');
        const memart = (await currentAdminDocument(suite.t, partner.companyId, 'memart')).id;
        const response = await adminPost(
          suite.t,
          adminDocumentUrl(partner.companyId, memart, 'reject'),
          { reason: 'Blurred.' },
          { 'x-request-id': 'admin-reject-memart-1' },
        );
        assert.equal(response.status, 200, response.text);
        const reviewed = (await outboxEvents(suite.t, partner.companyId)).filter(
          (event) => event.type === 'document.reviewed',
        );
        assert.ok(reviewed.length >= 1);
        for (const event of reviewed) {
          assert.deepEqual(JSON.parse(event.payload), {
            id: memart,
            document_type: 'memart',
            status: 'rejected',
            rejection_reason: 'Blurred.',
          });
        }
        const audited = (await auditActions(suite.t, partner.companyId)).find(
          (event) => event.action === 'document.rejected',
        );
        assert.equal(audited?.actor_type, 'api_key');
        assert.equal(audited?.target_type, 'document');
        assert.equal(audited?.target_id, memart);
        assert.equal(audited?.request_id, 'admin-reject-memart-1');
        assert.equal(JSON.parse(audited?.metadata ?? '{}').reason, 'Blurred.');
      });
    });

    describe('application decisions', () => {
      it('answers 409 ONBOARDING_INCOMPLETE to approval while checklist documents are pending, writing nothing', async () => {
        const partner = await newPartner(suite, 'submitted');
        const outboxBefore = (await outboxEvents(suite.t, partner.companyId)).length;
        const auditBefore = (await auditActions(suite.t, partner.companyId)).length;
        const response = await adminPost(suite.t, adminPartnerUrl(partner.companyId, 'approve'));
        assertError(response, 409, 'ONBOARDING_INCOMPLETE');
        assert.deepEqual(response.body.errors, {
          'documents.cac_certificate': ['not approved'],
          'documents.memart': ['not approved'],
          'documents.valid_id': ['not approved'],
        });

        const cac = (await currentAdminDocument(suite.t, partner.companyId, 'cac_certificate')).id;
        await adminPost(suite.t, adminDocumentUrl(partner.companyId, cac, 'approve'));
        const partial = await adminPost(suite.t, adminPartnerUrl(partner.companyId, 'approve'));
        assertError(partial, 409, 'ONBOARDING_INCOMPLETE');
        assert.deepEqual(Object.keys(partial.body.errors ?? {}).sort(), [
          'documents.memart',
          'documents.valid_id',
        ]);

        assert.equal((await profileOf(suite.t, partner.token)).onboarding_status, 'under_review');
        const outboxAfter = await outboxEvents(suite.t, partner.companyId);
        assert.deepEqual(
          outboxAfter.slice(outboxBefore).map((event) => event.type),
          outboxAfter.slice(outboxBefore).map(() => 'document.reviewed'),
          'a refused approval queues no event',
        );
        assert.ok(!outboxAfter.some((event) => JSON.parse(event.payload).onboarding_status === 'active'));
        const auditAfter = await auditActions(suite.t, partner.companyId);
        assert.equal(
          auditAfter.filter((event) => event.action === 'onboarding.status_changed').length,
          1,
          'only the submission changed the status',
        );
        assert.equal(auditAfter.length, auditBefore + 1, 'only the document approval was audited');
      });

      it('answers 409 ONBOARDING_LOCKED to approving, requesting changes on or rejecting an application not under review', async () => {
        const partner = await newPartner(suite, 'signed-in');
        await completeOnboarding(suite.t, partner.token);
        for (const [action, body] of [
          ['approve', undefined],
          ['request-changes', { reason: 'x' }],
          ['reject', { reason: 'x' }],
        ] as const) {
          assertError(
            await adminPost(suite.t, adminPartnerUrl(partner.companyId, action), body),
            409,
            'ONBOARDING_LOCKED',
          );
        }
        assert.equal((await profileOf(suite.t, partner.token)).onboarding_status, 'in_progress');
      });

      it('approves a reviewed application: active, audited, onboarding.status_changed queued', async () => {
        const partner = await newPartner(suite, 'active');
        const record = await partnerRecord(suite.t, partner.companyId);
        assert.equal(record.onboarding_status, 'active');
        assert.deepEqual(record.requirements, { currently_due: [], pending_review: [], errors: [] });
        const profile = await profileOf(suite.t, partner.token);
        assert.equal(profile.onboarding_status, 'active');
        const statusEvents = (await outboxEvents(suite.t, partner.companyId)).filter(
          (event) => event.type === 'onboarding.status_changed',
        );
        assert.ok(
          statusEvents.some((event) => JSON.parse(event.payload).onboarding_status === 'active'),
          'an onboarding.status_changed event to active',
        );
        const reviewed = (await outboxEvents(suite.t, partner.companyId)).filter(
          (event) => event.type === 'document.reviewed',
        );
        assert.deepEqual(
          [...new Set(reviewed.map((event) => JSON.parse(event.payload).document_type))].sort(),
          ['cac_certificate', 'memart', 'valid_id'],
        );
        const approval = (await auditActions(suite.t, partner.companyId)).find(
          (event) =>
            event.action === 'onboarding.status_changed' &&
            JSON.parse(event.metadata ?? '{}').to === 'active',
        );
        assert.equal(approval?.actor_type, 'api_key');
      });

      it('requests changes: back to in_progress with review_notes the partner sees, then resubmission works', async () => {
        const partner = await newPartner(suite, 'submitted');
        assertError(
          await adminPost(suite.t, adminPartnerUrl(partner.companyId, 'request-changes'), {}),
          422,
          'VALIDATION_FAILED',
          { fields: ['reason'] },
        );
        const reason = 'Upload the certified true copy of the MEMART.';
        const response = await adminPost(suite.t, adminPartnerUrl(partner.companyId, 'request-changes'), {
          reason,
        });
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.data.onboarding_status, 'in_progress');
        assert.equal(response.body.data.review_notes, reason);

        const profile = await profileOf(suite.t, partner.token);
        assert.equal(profile.onboarding_status, 'in_progress');
        assert.equal(profile.review_notes, reason);
        assert.deepEqual(
          profile.requirements.errors.filter(
            (entry: { requirement: string }) => entry.requirement === 'application',
          ),
          [{ requirement: 'application', reason }],
        );
        assert.deepEqual(profile.requirements.currently_due, ['submit']);
        const event = (await outboxEvents(suite.t, partner.companyId)).find(
          (candidate) =>
            candidate.type === 'onboarding.status_changed' &&
            JSON.parse(candidate.payload).onboarding_status === 'in_progress',
        );
        assert.equal(JSON.parse(event?.payload ?? '{}').review_notes, reason);

        const replaced = await postDocument(
          suite.t,
          partner.token,
          { document_type: 'memart' },
          { file: { bytes: PDF_BYTES } },
        );
        assert.equal(replaced.status, 201, replaced.text);
        const resubmitted = await submit(suite.t, partner.token);
        assert.equal(resubmitted.status, 200, resubmitted.text);
        assert.equal(resubmitted.body.data.onboarding_status, 'under_review');
      });

      it('rejects an application for good: submit, representative and documents answer 409 ONBOARDING_LOCKED', async () => {
        const reason = 'The business model is not supported.';
        const partner = await newPartner(suite, 'submitted');
        await rejectPartner(suite.t, partner.companyId, reason);
        const profile = await profileOf(suite.t, partner.token);
        assert.equal(profile.onboarding_status, 'rejected');
        assert.equal(profile.review_notes, reason);
        assert.deepEqual(profile.requirements.currently_due, []);
        assert.deepEqual(profile.requirements.errors, [{ requirement: 'application', reason }]);

        assertError(await submit(suite.t, partner.token), 409, 'ONBOARDING_LOCKED');
        assertError(await postRepresentative(suite.t, partner.token), 409, 'ONBOARDING_LOCKED');
        assertError(
          await postDocument(
            suite.t,
            partner.token,
            { document_type: 'memart' },
            { file: { bytes: PDF_BYTES } },
          ),
          409,
          'ONBOARDING_LOCKED',
        );
        for (const [action, body] of [
          ['approve', undefined],
          ['request-changes', { reason: 'try again' }],
          ['reject', { reason: 'again' }],
        ] as const) {
          assertError(
            await adminPost(suite.t, adminPartnerUrl(partner.companyId, action), body),
            409,
            'ONBOARDING_LOCKED',
          );
        }
        assert.equal((await partnerRecord(suite.t, partner.companyId)).onboarding_status, 'rejected');
      });
    });
  });
}
