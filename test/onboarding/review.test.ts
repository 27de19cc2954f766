import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import {
  type AdminDocument,
  adminGet,
  adminHeaders,
  adminPost,
  currentAdminDocument,
  downloadFile,
  partnerRecord,
  rejectPartner,
} from '../support/admin.js';
import { DIALECTS, TEST_ADMIN_KEY, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { PDF_BYTES, PNG_BYTES } from '../support/factories.js';
import {
  completeOnboarding,
  postDocument,
  postRepresentative,
  profileOf,
  setBusinessType,
  submit,
} from '../support/onboarding.js';
import { newPartner, type PartnerAt } from '../support/partners.js';
import {
  ADMIN_PARTNERS,
  AUDIT_EVENTS,
  adminDocumentUrl,
  adminPartnerUrl,
  BUSINESS_INFO,
  LOGIN,
  OPERATOR_OPENAPI,
} from '../support/paths.js';
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
        assert.equal(changes[0]?.actor_type, 'partner');
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

    describe('admin authentication', () => {
      const paths = (companyId: number) => [
        ['GET', ADMIN_PARTNERS],
        ['GET', adminPartnerUrl(companyId)],
        ['POST', adminPartnerUrl(companyId, 'approve')],
        ['GET', `${AUDIT_EVENTS}?company_id=${companyId}`],
      ];

      it('answers 401 UNAUTHENTICATED without a key, with a wrong key, or with a partner session token', async () => {
        const partner = await newPartner(suite, 'signed-in');
        for (const [method, path] of paths(partner.companyId)) {
          const attempts: Array<Record<string, string>> = [
            {},
            { authorization: 'Bearer wrong-admin-key-0123456789abcdefghijklmnop' },
            { authorization: `Bearer ${partner.token}` },
            { authorization: `Basic ${Buffer.from(`admin:${TEST_ADMIN_KEY}`).toString('base64')}` },
            { authorization: TEST_ADMIN_KEY },
          ];
          for (const headers of attempts) {
            const response = await suite.t.api.request(method as string, path as string, { headers });
            assertError(response, 401, 'UNAUTHENTICATED');
          }
        }
        assert.equal((await profileOf(suite.t, partner.token)).onboarding_status, 'in_progress');
      });
    });

    describe('partner list', () => {
      it('pages through every partner with limit and next_cursor, without duplicates', async () => {
        const created: PartnerAt<'signed-in'>[] = [];
        for (let index = 0; index < 3; index++) created.push(await newPartner(suite, 'signed-in'));
        const seen: number[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
          const page = await adminGet(suite.t, `${ADMIN_PARTNERS}${query}`);
          assert.equal(page.status, 200, page.text);
          assert.ok(page.body.data.items.length <= 2);
          if (page.body.data.next_cursor !== null) assert.equal(page.body.data.items.length, 2);
          seen.push(...page.body.data.items.map((item: { company_id: number }) => item.company_id));
          cursor = page.body.data.next_cursor;
          pages++;
          assert.ok(pages < 100, 'the pages end');
        } while (cursor !== null);

        assert.equal(new Set(seen).size, seen.length, 'no partner twice');
        for (const partner of created) assert.ok(seen.includes(partner.companyId));
        assert.deepEqual(
          seen,
          [...seen].sort((a, b) => a - b),
          'oldest first',
        );
        const all = await adminGet(suite.t, `${ADMIN_PARTNERS}?limit=100`);
        assert.deepEqual(
          all.body.data.items.map((item: { company_id: number }) => item.company_id),
          seen,
        );
        assert.equal(all.body.data.next_cursor, null);
        const item = all.body.data.items.find(
          (candidate: { company_id: number }) => candidate.company_id === created[0]?.companyId,
        );
        assert.equal(item.email, created[0]?.email);
        assert.equal(item.onboarding_status, 'in_progress');
        assert.equal(item.business_type, null);
      });

      it('filters by onboarding_status', async () => {
        const waiting = await newPartner(suite, 'submitted');
        const fresh = await newPartner(suite, 'signed-in');
        const queue = await adminGet(suite.t, `${ADMIN_PARTNERS}?onboarding_status=under_review&limit=100`);
        assert.equal(queue.status, 200, queue.text);
        const ids = queue.body.data.items.map((item: { company_id: number }) => item.company_id);
        assert.ok(ids.includes(waiting.companyId));
        assert.ok(!ids.includes(fresh.companyId));
        for (const item of queue.body.data.items) assert.equal(item.onboarding_status, 'under_review');
      });

      it('answers 422 to an invalid cursor, limit or onboarding_status', async () => {
        for (const cursor of [
          'not-a-cursor',
          Buffer.from('{"p":"x"}').toString('base64url'),
          'eyJwIjoxLjV9',
        ]) {
          assertError(
            await adminGet(suite.t, `${ADMIN_PARTNERS}?cursor=${cursor}`),
            422,
            'VALIDATION_FAILED',
            { fields: ['cursor'] },
          );
        }
        for (const limit of ['0', '101', '-1', 'abc', '1.5']) {
          assertError(await adminGet(suite.t, `${ADMIN_PARTNERS}?limit=${limit}`), 422, 'VALIDATION_FAILED', {
            fields: ['limit'],
          });
        }
        assertError(
          await adminGet(suite.t, `${ADMIN_PARTNERS}?onboarding_status=approved`),
          422,
          'VALIDATION_FAILED',
          { fields: ['onboarding_status'] },
        );
      });
    });

    describe('partner record', () => {
      it('shows the full record: documents with ids, representative with KYC result and masked BVN, KYC checks', async () => {
        const partner = await newPartner(suite, 'submitted');
        const record = await partnerRecord(suite.t, partner.companyId);
        assert.equal(record.company_id, partner.companyId);
        assert.equal(record.email, partner.email);
        assert.equal(record.onboarding_status, 'under_review');
        assert.equal(record.business_type, 'limited_liability');
        assert.equal(record.rc_number, 'RC1234567');
        assert.equal(record.verified, true);
        assert.equal(record.representative.first_name, 'Ada');
        assert.equal(record.representative.bvn, '*******6789');
        assert.equal(record.representative.bvn_locked, true);
        assert.equal(record.representative.kyc.status, 'passed');
        assert.equal(record.representative.kyc.provider, 'sandbox');
        const types = (record.documents as AdminDocument[]).map((document) => document.document_type).sort();
        assert.deepEqual(types, ['cac_certificate', 'memart', 'valid_id']);
        for (const document of record.documents as AdminDocument[]) {
          assert.match(document.id, /^[0-9a-f-]{36}$/);
          assert.equal(document.status, 'pending_review');
          assert.equal(document.current, true);
        }
        assert.equal(
          record.representative.id_document_id,
          (record.documents as AdminDocument[]).find((document) => document.document_type === 'valid_id')?.id,
        );
        assert.equal(record.kyc_checks.length, 1);
        assert.equal(record.kyc_checks[0].outcome, 'passed');
        assert.deepEqual(record.document_checklist, {
          cac_certificate: 'uploaded',
          memart: 'uploaded',
          valid_id: 'uploaded',
        });
      });

      it('answers 404 NOT_FOUND for an unknown or malformed company_id on every operator action', async () => {
        const unknown = 2_000_000_000;
        const documentId = randomUUID();
        const requests: Array<[string, string, unknown?]> = [
          ['GET', adminPartnerUrl(unknown)],
          ['GET', `${ADMIN_PARTNERS}/abc`],
          ['GET', `${ADMIN_PARTNERS}/0`],
          ['POST', adminPartnerUrl(unknown, 'approve')],
          ['POST', adminPartnerUrl(unknown, 'request-changes'), { reason: 'x' }],
          ['POST', adminPartnerUrl(unknown, 'reject'), { reason: 'x' }],
          ['POST', adminDocumentUrl(unknown, documentId, 'approve')],
          ['POST', adminDocumentUrl(unknown, documentId, 'reject'), { reason: 'x' }],
          ['GET', adminDocumentUrl(unknown, documentId, 'file')],
        ];
        for (const [method, path, body] of requests) {
          const response = await suite.t.api.request(method, path, {
            headers: adminHeaders,
            ...(body ? { json: body } : {}),
          });
          assertError(response, 404, 'NOT_FOUND');
        }
      });

      it("answers 404 NOT_FOUND for an unknown document_id or another partner's document, changing nothing", async () => {
        const owner = await newPartner(suite, 'submitted');
        const other = await newPartner(suite, 'submitted');
        const foreign = (await currentAdminDocument(suite.t, owner.companyId, 'memart')).id;
        for (const documentId of [randomUUID(), 'not-a-uuid', foreign]) {
          assertError(
            await adminPost(suite.t, adminDocumentUrl(other.companyId, documentId, 'approve')),
            404,
            'NOT_FOUND',
          );
          assertError(
            await adminPost(suite.t, adminDocumentUrl(other.companyId, documentId, 'reject'), {
              reason: 'no',
            }),
            404,
            'NOT_FOUND',
          );
          const file = await downloadFile(suite.t, other.companyId, documentId);
          assert.equal(file.status, 404);
          assert.equal(JSON.parse(file.bytes.toString()).error_code, 'NOT_FOUND');
        }
        const record = await partnerRecord(suite.t, owner.companyId);
        const memart = (record.documents as AdminDocument[]).find((document) => document.id === foreign);
        assert.equal(memart?.status, 'pending_review');
      });
    });

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

    describe('file download', () => {
      it('returns the exact bytes with the content-type detected from them, never the client file name', async () => {
        const partner = await newPartner(suite, 'signed-in');
        const png = await postDocument(
          suite.t,
          partner.token,
          { document_type: 'other' },
          { file: { bytes: PNG_BYTES, name: 'confidential-board-minutes.pdf', type: 'application/pdf' } },
        );
        const pdf = await postDocument(
          suite.t,
          partner.token,
          { document_type: 'memart' },
          { file: { bytes: PDF_BYTES } },
        );
        const pngFile = await downloadFile(suite.t, partner.companyId, png.body.data.id);
        assert.equal(pngFile.status, 200);
        assert.deepEqual(pngFile.bytes, PNG_BYTES);
        assert.equal(pngFile.headers.get('content-type'), 'image/png');
        assert.equal(pngFile.headers.get('content-length'), String(PNG_BYTES.length));
        assert.ok(!(pngFile.headers.get('content-disposition') ?? '').includes('confidential'));
        assert.equal(pngFile.headers.get('x-content-type-options'), 'nosniff');
        const pdfFile = await downloadFile(suite.t, partner.companyId, pdf.body.data.id);
        assert.deepEqual(pdfFile.bytes, PDF_BYTES);
        assert.equal(pdfFile.headers.get('content-type'), 'application/pdf');
      });

      it('answers 404 NOT_FOUND for a document given as a URL', async () => {
        const partner = await newPartner(suite, 'signed-in');
        const byUrl = await postDocument(suite.t, partner.token, {
          document_type: 'memart',
          file_url: 'https://files.acme.ng/memart.pdf',
        });
        const file = await downloadFile(suite.t, partner.companyId, byUrl.body.data.id);
        assert.equal(file.status, 404);
        const body = JSON.parse(file.bytes.toString());
        assert.equal(body.status, 'error');
        assert.equal(body.error_code, 'NOT_FOUND');
      });
    });

    describe('audit events', () => {
      it("lists a company's events with actor, action, target, request id and IP, newest first, paginated", async () => {
        const partner = await newPartner(suite, 'submitted');
        const bystander = await newPartner(suite, 'signed-in');
        const memart = (await currentAdminDocument(suite.t, partner.companyId, 'memart')).id;
        await adminPost(suite.t, adminDocumentUrl(partner.companyId, memart, 'approve'), undefined, {
          'x-request-id': 'audit-approve-memart',
        });
        const failedLogin = await suite.t.api.post(LOGIN, {
          email: partner.email,
          password: 'definitely-not-the-password',
        });
        assertError(failedLogin, 401, 'INVALID_CREDENTIALS');

        const all = await adminGet(suite.t, `${AUDIT_EVENTS}?company_id=${partner.companyId}&limit=100`);
        assert.equal(all.status, 200, all.text);
        const items = all.body.data.items as Array<{
          id: string;
          company_id: number;
          actor: { type: string; id: string | null };
          action: string;
          target: { type: string; id: string | null } | null;
          request_id: string | null;
          ip: string | null;
          created_at: string;
        }>;
        assert.ok(items.length >= 9, `${items.length} events`);
        for (const item of items) assert.equal(item.company_id, partner.companyId);
        assert.ok(!items.some((item) => item.company_id === bystander.companyId));
        const actions = items.map((item) => item.action);
        for (const action of [
          'account.registered',
          'account.login',
          'onboarding.profile_updated',
          'onboarding.representative_added',
          'kyc.checked',
          'onboarding.document_uploaded',
          'onboarding.status_changed',
          'document.approved',
          'account.login_failed',
        ]) {
          assert.ok(actions.includes(action), `${action} in ${actions.join(', ')}`);
        }
        const approval = items.find((item) => item.action === 'document.approved');
        assert.deepEqual(approval?.actor, { type: 'api_key', id: null, email: null });
        assert.deepEqual(approval?.target, { type: 'document', id: memart });
        assert.equal(approval?.request_id, 'audit-approve-memart');
        assert.equal(approval?.ip, '127.0.0.1');
        const submission = items.find((item) => item.action === 'onboarding.status_changed');
        assert.deepEqual(submission?.actor, { type: 'partner', id: String(partner.companyId), email: null });
        for (const [index, item] of items.entries()) {
          if (index > 0) assert.ok(item.created_at <= items[index - 1]!.created_at, 'newest first');
        }

        const paged: string[] = [];
        let cursor: string | null = null;
        do {
          const query: string = `company_id=${partner.companyId}&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
          const page = await adminGet(suite.t, `${AUDIT_EVENTS}?${query}`);
          assert.equal(page.status, 200, page.text);
          paged.push(...page.body.data.items.map((item: { id: string }) => item.id));
          cursor = page.body.data.next_cursor;
        } while (cursor !== null);
        assert.deepEqual(
          paged,
          items.map((item) => item.id),
          'pages add up to the whole list, no duplicates',
        );

        assertError(await adminGet(suite.t, `${AUDIT_EVENTS}?cursor=bogus`), 422, 'VALIDATION_FAILED', {
          fields: ['cursor'],
        });
        assertError(await adminGet(suite.t, `${AUDIT_EVENTS}?company_id=abc`), 422, 'VALIDATION_FAILED', {
          fields: ['company_id'],
        });
      });
    });
  });

  describe(`back office without ADMIN_API_KEY [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name, { env: { ADMIN_API_KEY: '' } });

    it('answers 404 NOT_FOUND on every /admin path, with or without a bearer', async () => {
      const partner = await newPartner(suite, 'signed-in');
      const upload = await postDocument(
        suite.t,
        partner.token,
        { document_type: 'memart' },
        { file: { bytes: PDF_BYTES } },
      );
      assert.equal(upload.status, 201, upload.text);
      const documentId = upload.body.data.id as string;
      const requests: Array<[string, string, unknown?]> = [
        ['GET', ADMIN_PARTNERS],
        ['GET', `${ADMIN_PARTNERS}?onboarding_status=under_review`],
        ['GET', adminPartnerUrl(partner.companyId)],
        ['POST', adminPartnerUrl(partner.companyId, 'approve')],
        ['POST', adminPartnerUrl(partner.companyId, 'request-changes'), { reason: 'x' }],
        ['POST', adminPartnerUrl(partner.companyId, 'reject'), { reason: 'x' }],
        ['POST', adminDocumentUrl(partner.companyId, documentId, 'approve')],
        ['POST', adminDocumentUrl(partner.companyId, documentId, 'reject'), { reason: 'x' }],
        ['GET', adminDocumentUrl(partner.companyId, documentId, 'file')],
        ['GET', `${AUDIT_EVENTS}?company_id=${partner.companyId}`],
        ['GET', OPERATOR_OPENAPI],
      ];
      for (const [method, path, body] of requests) {
        for (const headers of [{}, adminHeaders, { authorization: 'Bearer ' }]) {
          const response = await suite.t.api.request(method, path, {
            headers,
            ...(body ? { json: body } : {}),
          });
          assertError(response, 404, 'NOT_FOUND');
        }
      }
      const profile = await profileOf(suite.t, partner.token);
      assert.equal(profile.documents[0].status, 'pending_review', 'nothing was decided');
    });

    it('keeps the partner API working', async () => {
      const partner = await newPartner(suite, 'signed-in');
      const response = await suite.t.api.get(BUSINESS_INFO, {
        token: partner.token,
      });
      assert.equal(response.status, 200, response.text);
    });
  });
}

describe('ADMIN_API_KEY configuration', () => {
  it('treats a blank ADMIN_API_KEY as unset', () => {
    assert.equal(loadConfig({ ADMIN_API_KEY: '' }).ADMIN_API_KEY, undefined);
    assert.equal(loadConfig({ ADMIN_API_KEY: '   ' }).ADMIN_API_KEY, undefined);
    assert.equal(loadConfig({}).ADMIN_API_KEY, undefined);
    assert.equal(loadConfig({ ADMIN_API_KEY: TEST_ADMIN_KEY }).ADMIN_API_KEY, TEST_ADMIN_KEY);
  });

  it('refuses an ADMIN_API_KEY shorter than 32 characters', () => {
    assert.throws(
      () => loadConfig({ ADMIN_API_KEY: 'short-key' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /ADMIN_API_KEY/);
        return true;
      },
    );
  });
});
