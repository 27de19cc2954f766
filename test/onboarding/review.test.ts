import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  type AdminDocument,
  adminGet,
  adminHeaders,
  adminPost,
  currentAdminDocument,
  downloadFile,
  partnerRecord,
} from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { PDF_BYTES, PNG_BYTES } from '../support/factories.js';
import { postDocument } from '../support/onboarding.js';
import { newPartner, type PartnerAt } from '../support/partners.js';
import { ADMIN_PARTNERS, AUDIT_EVENTS, adminDocumentUrl, adminPartnerUrl, LOGIN } from '../support/paths.js';
import { ownerIdOf } from '../support/users.js';

for (const dialect of DIALECTS) {
  describe(`submission and back-office review [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);

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
        assert.deepEqual(approval?.actor, { type: 'api_key', id: null, name: null, email: null });
        assert.deepEqual(approval?.target, { type: 'document', id: memart });
        assert.equal(approval?.request_id, 'audit-approve-memart');
        assert.equal(approval?.ip, '127.0.0.1');
        const submission = items.find((item) => item.action === 'onboarding.status_changed');
        // Submitted with the owner's session: the audit names the person, not the company.
        assert.deepEqual(submission?.actor, {
          type: 'user',
          id: await ownerIdOf(suite.t, partner.companyId),
          name: partner.email.split('@')[0],
          email: partner.email,
        });
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
}
