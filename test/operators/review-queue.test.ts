import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adminHeaders, adminPost } from '../support/admin.js';
import { DIALECTS, type TestApp, useApp } from '../support/app.js';
import { PDF_BYTES } from '../support/factories.js';
import { listAll } from '../support/http.js';
import { postDocument, submit } from '../support/onboarding.js';
import { newPartner } from '../support/partners.js';
import {
  ADMIN_PARTNERS,
  adminDocumentUrl,
  adminPartnerUrl,
  FORGOT_PASSWORD,
  LOGIN,
  RESET_PASSWORD,
} from '../support/paths.js';
import { auditEvents, pendingDocuments, STRONG } from './operator-kit.js';

const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;

type Api = Pick<TestApp, 'api' | 'clock' | 'url'>;

for (const dialect of DIALECTS) {
  describe(`review queue: waiting_since [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);

    async function queueItem(t: Api, companyId: number) {
      const items = await listAll(t, ADMIN_PARTNERS, adminHeaders);
      const item = items.find((candidate) => candidate.company_id === companyId);
      assert.ok(item, `partner ${companyId} in the list`);
      return item as { waiting_since: string | null; pending_review: string[]; onboarding_status: string };
    }

    it('is the submission time of an application under review, whatever happens meanwhile', async () => {
      const { t, sink } = suite;
      const fresh = await newPartner({ t, sink }, 'signed-in');
      assert.equal((await queueItem(t, fresh.companyId)).waiting_since, null, 'nothing awaits the operator');

      const partner = await newPartner({ t, sink }, 'submitted');
      const submission = (
        await auditEvents(t, { company_id: partner.companyId, action: 'onboarding.status_changed' })
      ).find((event) => event.metadata?.['to'] === 'under_review');
      assert.ok(submission);
      const item = await queueItem(t, partner.companyId);
      assert.equal(item.onboarding_status, 'under_review');
      assert.ok(item.pending_review.includes('application'));
      assert.equal(item.waiting_since, submission.created_at);

      t.clock.advance(2 * HOUR);
      const [document] = await pendingDocuments(t, partner.companyId);
      const decided = await adminPost(t, adminDocumentUrl(partner.companyId, document!.id, 'approve'));
      assert.equal(decided.status, 200, decided.text);
      assert.equal(
        (await queueItem(t, partner.companyId)).waiting_since,
        submission.created_at,
        'a document decision',
      );

      t.clock.advance(HOUR);
      assert.equal((await t.api.post(FORGOT_PASSWORD, { email: partner.email })).status, 200);
      const code = await sink.otpFor(partner.email, 2, 'password reset');
      const reset = await t.api.post(RESET_PASSWORD, {
        email: partner.email,
        otp: code,
        password: STRONG,
        password_confirmation: STRONG,
      });
      assert.equal(reset.status, 200, reset.text);
      assert.equal(
        (await queueItem(t, partner.companyId)).waiting_since,
        submission.created_at,
        'a password reset',
      );

      // Sent back and submitted again: the new submission counts.
      const changes = await adminPost(t, adminPartnerUrl(partner.companyId, 'request-changes'), {
        reason: 'More.',
      });
      assert.equal(changes.status, 200, changes.text);
      t.clock.advance(HOUR);
      const token = (await t.api.post(LOGIN, { email: partner.email, password: STRONG })).body.data
        .token as string;
      const resubmitted = await submit(t, token);
      assert.equal(resubmitted.status, 200, resubmitted.text);
      const resubmission = (
        await auditEvents(t, { company_id: partner.companyId, action: 'onboarding.status_changed' })
      ).find((event) => event.metadata?.['to'] === 'under_review');
      assert.notEqual(resubmission?.created_at, submission.created_at);
      assert.equal((await queueItem(t, partner.companyId)).waiting_since, resubmission?.created_at);
    });

    it('is the upload time of the oldest document awaiting review for an approved partner', async () => {
      const { t, sink } = suite;
      const partner = await newPartner({ t, sink }, 'active');
      const quiet = await queueItem(t, partner.companyId);
      assert.equal(quiet.waiting_since, null);
      assert.deepEqual(quiet.pending_review, []);

      t.clock.advance(20 * MINUTE);
      const older = await postDocument(
        t,
        partner.token,
        { document_type: 'tin_certificate' },
        { file: { bytes: PDF_BYTES, name: 'tin.pdf' } },
      );
      assert.equal(older.status, 201, older.text);
      t.clock.advance(20 * MINUTE);
      const newer = await postDocument(
        t,
        partner.token,
        { document_type: 'cac_status_report' },
        { file: { bytes: PDF_BYTES, name: 'status.pdf' } },
      );
      assert.equal(newer.status, 201, newer.text);
      assert.ok(older.body.data.uploaded_at < newer.body.data.uploaded_at);

      const waiting = await queueItem(t, partner.companyId);
      assert.equal(waiting.onboarding_status, 'active');
      assert.deepEqual([...waiting.pending_review].sort(), [
        'documents.cac_status_report',
        'documents.tin_certificate',
      ]);
      assert.equal(waiting.waiting_since, older.body.data.uploaded_at);

      t.clock.advance(20 * MINUTE);
      const first = await adminPost(t, adminDocumentUrl(partner.companyId, older.body.data.id, 'approve'));
      assert.equal(first.status, 200, first.text);
      assert.equal((await queueItem(t, partner.companyId)).waiting_since, newer.body.data.uploaded_at);
      const second = await adminPost(t, adminDocumentUrl(partner.companyId, newer.body.data.id, 'reject'), {
        reason: 'Expired report.',
      });
      assert.equal(second.status, 200, second.text);
      assert.equal((await queueItem(t, partner.companyId)).waiting_since, null);
    });
  });
}
