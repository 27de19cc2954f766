import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { adminPost } from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError, UUID } from '../support/assertions.js';
import { fileOfSize, JPEG_BYTES, MIB, PDF_BYTES, PNG_BYTES } from '../support/factories.js';
import {
  GUIDE_DOCUMENT_TYPES,
  postDocument,
  postRepresentative,
  profileOf,
  setBusinessType,
} from '../support/onboarding.js';
import { newPartner, type PartnerAt } from '../support/partners.js';
import { adminDocumentUrl, DOCUMENTS } from '../support/paths.js';
import { currentDocuments } from '../support/records.js';

for (const dialect of DIALECTS) {
  describe(`onboarding documents [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);
    /** Only ever sent invalid requests. */
    let idle: PartnerAt<'signed-in'>;
    before(async () => {
      idle = await newPartner(suite, 'signed-in');
    });

    async function assertIdleHasNoDocuments() {
      assert.deepEqual((await profileOf(suite.t, idle.token)).documents, []);
    }

    it('uploads a file: 201 with id, document_type, pending_review and uploaded_at', async () => {
      const partner = await newPartner(suite, 'signed-in');
      const before = suite.t.clock.now();
      const response = await postDocument(
        suite.t,
        partner.token,
        { document_type: 'cac_certificate' },
        { file: { bytes: PDF_BYTES, name: 'cac.pdf', type: 'application/pdf' } },
      );
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.status, 'success');
      const data = response.body.data;
      assert.deepEqual(Object.keys(data).sort(), ['document_type', 'id', 'status', 'uploaded_at']);
      assert.match(data.id, UUID);
      assert.equal(data.document_type, 'cac_certificate');
      assert.equal(data.status, 'pending_review');
      const uploadedAt = Date.parse(data.uploaded_at);
      assert.ok(uploadedAt >= before && uploadedAt <= suite.t.clock.now(), data.uploaded_at);
      assert.match(data.uploaded_at, /Z$/);

      const [row] = await currentDocuments(suite.t, partner.companyId, 'cac_certificate');
      assert.equal(row?.id, data.id);
      assert.equal(row?.content_type, 'application/pdf');
      assert.equal(row?.size_bytes, PDF_BYTES.length);
      assert.equal(row?.file_url, null);
      assert.ok(row?.storage_key);
      assert.match(row?.sha256 ?? '', /^[0-9a-f]{64}$/);

      const profile = await profileOf(suite.t, partner.token);
      assert.deepEqual(profile.documents, [
        {
          id: data.id,
          document_type: 'cac_certificate',
          status: 'pending_review',
          rejection_reason: null,
          uploaded_at: data.uploaded_at,
        },
      ]);
    });

    it('uploads a file_url: 201, kept as a URL and never stored as a file', async () => {
      const partner = await newPartner(suite, 'signed-in');
      const response = await postDocument(suite.t, partner.token, {
        document_type: 'memart',
        file_url: 'https://files.acme.ng/memart.pdf',
      });
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.data.status, 'pending_review');
      const [row] = await currentDocuments(suite.t, partner.companyId, 'memart');
      assert.equal(row?.file_url, 'https://files.acme.ng/memart.pdf');
      assert.equal(row?.storage_key, null);
      assert.equal(row?.content_type, null);
    });

    it('accepts every document type the partner guide names', async () => {
      const partner = await newPartner(suite, 'signed-in');
      for (const documentType of GUIDE_DOCUMENT_TYPES) {
        const response = await postDocument(suite.t, partner.token, {
          document_type: documentType,
          file_url: `https://files.acme.ng/${documentType}.pdf`,
        });
        assert.equal(response.status, 201, `${documentType}: ${response.text}`);
      }
      const profile = await profileOf(suite.t, partner.token);
      assert.deepEqual(
        profile.documents.map((document: { document_type: string }) => document.document_type).sort(),
        [...GUIDE_DOCUMENT_TYPES].sort(),
      );
    });

    it('supersedes the previous upload of a type: the profile shows only the new one', async () => {
      const partner = await newPartner(suite, 'signed-in');
      await setBusinessType(suite.t, partner.token, 'limited_liability');
      const first = await postDocument(
        suite.t,
        partner.token,
        { document_type: 'memart' },
        { file: { bytes: PDF_BYTES } },
      );
      const second = await postDocument(
        suite.t,
        partner.token,
        { document_type: 'memart' },
        { file: { bytes: JPEG_BYTES } },
      );
      assert.equal(second.status, 201, second.text);
      assert.notEqual(second.body.data.id, first.body.data.id);

      const profile = await profileOf(suite.t, partner.token);
      const memarts = profile.documents.filter(
        (document: { document_type: string }) => document.document_type === 'memart',
      );
      assert.deepEqual(
        memarts.map((document: { id: string }) => document.id),
        [second.body.data.id],
      );
      assert.equal(profile.document_checklist.memart, 'uploaded');
      assert.equal(profile.document_checklist.cac_certificate, 'missing');

      const rows = await suite.t.db
        .selectFrom('documents')
        .select(['id', 'superseded_at'])
        .where('partner_id', '=', partner.companyId)
        .where('document_type', '=', 'memart')
        .execute();
      assert.equal(rows.length, 2);
      assert.notEqual(rows.find((row) => row.id === first.body.data.id)?.superseded_at, null);
      assert.equal(rows.find((row) => row.id === second.body.data.id)?.superseded_at, null);
    });

    it('refuses a document_type outside the enum, or none, with 422 naming document_type', async () => {
      for (const documentType of ['passport', 'CAC_CERTIFICATE', 'valid-id']) {
        const response = await postDocument(
          suite.t,
          idle.token,
          { document_type: documentType },
          { file: { bytes: PDF_BYTES } },
        );
        assertError(response, 422, 'VALIDATION_FAILED', { fields: ['document_type'] });
      }
      assertError(
        await postDocument(suite.t, idle.token, {}, { file: { bytes: PDF_BYTES } }),
        422,
        'VALIDATION_FAILED',
        { fields: ['document_type'] },
      );
      await assertIdleHasNoDocuments();
    });

    it('refuses both file and file_url, or neither, with 422 naming file', async () => {
      assertError(
        await postDocument(
          suite.t,
          idle.token,
          { document_type: 'memart', file_url: 'https://files.acme.ng/m.pdf' },
          { file: { bytes: PDF_BYTES } },
        ),
        422,
        'VALIDATION_FAILED',
        { fields: ['file'] },
      );
      assertError(
        await postDocument(suite.t, idle.token, { document_type: 'memart' }),
        422,
        'VALIDATION_FAILED',
        { fields: ['file'] },
      );
      await assertIdleHasNoDocuments();
    });

    it('decides the type by the bytes: refuses a text file named .pdf, accepts a PNG declared as PDF', async () => {
      assertError(
        await postDocument(
          suite.t,
          idle.token,
          { document_type: 'memart' },
          {
            file: {
              bytes: Buffer.from('%PDX not really a pdf'),
              name: 'memart.pdf',
              type: 'application/pdf',
            },
          },
        ),
        422,
        'VALIDATION_FAILED',
        { fields: ['file'] },
      );
      assertError(
        await postDocument(
          suite.t,
          idle.token,
          { document_type: 'memart' },
          { file: { bytes: Buffer.from('<html>hello</html>'), name: 'memart.png', type: 'image/png' } },
        ),
        422,
        'VALIDATION_FAILED',
        { fields: ['file'] },
      );
      await assertIdleHasNoDocuments();

      const partner = await newPartner(suite, 'signed-in');
      const response = await postDocument(
        suite.t,
        partner.token,
        { document_type: 'memart' },
        { file: { bytes: PNG_BYTES, name: 'memart.pdf', type: 'application/pdf' } },
      );
      assert.equal(response.status, 201, response.text);
      const [row] = await currentDocuments(suite.t, partner.companyId, 'memart');
      assert.equal(row?.content_type, 'image/png');
    });

    it('refuses an empty file with 422 and an http file_url with 422 naming file_url', async () => {
      assertError(
        await postDocument(
          suite.t,
          idle.token,
          { document_type: 'memart' },
          { file: { bytes: Buffer.alloc(0) } },
        ),
        422,
        'VALIDATION_FAILED',
        { fields: ['file'] },
      );
      assertError(
        await postDocument(suite.t, idle.token, {
          document_type: 'memart',
          file_url: 'http://files.acme.ng/m.pdf',
        }),
        422,
        'VALIDATION_FAILED',
        { fields: ['file_url'] },
      );
      await assertIdleHasNoDocuments();
    });

    it('accepts a file of exactly 5 MiB and refuses 5 MiB + 1 byte with 413 PAYLOAD_TOO_LARGE', async () => {
      assertError(
        await postDocument(
          suite.t,
          idle.token,
          { document_type: 'memart' },
          { file: { bytes: fileOfSize(5 * MIB + 1, PDF_BYTES) } },
        ),
        413,
        'PAYLOAD_TOO_LARGE',
      );
      await assertIdleHasNoDocuments();
      const partner = await newPartner(suite, 'signed-in');
      const response = await postDocument(
        suite.t,
        partner.token,
        { document_type: 'memart' },
        { file: { bytes: fileOfSize(5 * MIB, PDF_BYTES) } },
      );
      assert.equal(response.status, 201, response.text);
    });

    it('answers 415 UNSUPPORTED_MEDIA_TYPE to a JSON body', async () => {
      const response = await suite.t.api.post(
        DOCUMENTS,
        { document_type: 'memart', file_url: 'https://files.acme.ng/m.pdf' },
        { token: idle.token },
      );
      assertError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('turns a rejected document into a missing checklist entry with the reason in requirements.errors', async () => {
      const partner = await newPartner(suite, 'signed-in');
      await setBusinessType(suite.t, partner.token, 'limited_liability');
      const upload = await postDocument(
        suite.t,
        partner.token,
        { document_type: 'memart' },
        { file: { bytes: PDF_BYTES } },
      );
      const reason = 'The MEMART pages are out of order.';
      const rejected = await adminPost(
        suite.t,
        adminDocumentUrl(partner.companyId, upload.body.data.id, 'reject'),
        { reason },
      );
      assert.equal(rejected.status, 200, rejected.text);

      const profile = await profileOf(suite.t, partner.token);
      assert.equal(profile.document_checklist.memart, 'missing');
      assert.deepEqual(
        profile.documents.find((document: { id: string }) => document.id === upload.body.data.id),
        {
          id: upload.body.data.id,
          document_type: 'memart',
          status: 'rejected',
          rejection_reason: reason,
          uploaded_at: upload.body.data.uploaded_at,
        },
      );
      assert.ok(profile.requirements.currently_due.includes('documents.memart'));
      assert.deepEqual(
        profile.requirements.errors.filter(
          (entry: { requirement: string }) => entry.requirement === 'documents.memart',
        ),
        [{ requirement: 'documents.memart', reason }],
      );

      const replaced = await postDocument(
        suite.t,
        partner.token,
        { document_type: 'memart' },
        { file: { bytes: PDF_BYTES } },
      );
      assert.equal(replaced.status, 201, replaced.text);
      const after = await profileOf(suite.t, partner.token);
      assert.equal(after.document_checklist.memart, 'uploaded');
      assert.ok(
        !after.requirements.errors.some(
          (entry: { requirement: string }) => entry.requirement === 'documents.memart',
        ),
        'a new upload clears the rejection',
      );
    });

    it('answers 409 ONBOARDING_LOCKED to uploads while under_review, changing nothing', async () => {
      const partner = await newPartner(suite, 'submitted');
      const before = await currentDocuments(suite.t, partner.companyId);
      const response = await postDocument(
        suite.t,
        partner.token,
        { document_type: 'memart' },
        { file: { bytes: PDF_BYTES } },
      );
      assertError(response, 409, 'ONBOARDING_LOCKED');
      const byUrl = await postDocument(suite.t, partner.token, {
        document_type: 'tin_certificate',
        file_url: 'https://files.acme.ng/tin.pdf',
      });
      assertError(byUrl, 409, 'ONBOARDING_LOCKED');
      assert.deepEqual(await currentDocuments(suite.t, partner.companyId), before);
    });

    it('answers 409 ONBOARDING_LOCKED to uploads and representative changes once rejected', async () => {
      const partner = await newPartner(suite, 'rejected');
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
      assertError(await postRepresentative(suite.t, partner.token), 409, 'ONBOARDING_LOCKED');
    });

    it('leaves exactly one current document when uploads of one type race', async () => {
      const partner = await newPartner(suite, 'signed-in');
      const responses = await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          postDocument(
            suite.t,
            partner.token,
            { document_type: 'cac_certificate' },
            { file: { bytes: Buffer.concat([PDF_BYTES, Buffer.from(`upload ${index}`)]) } },
          ),
        ),
      );
      const created = responses.filter((response) => response.status === 201);
      assert.ok(created.length >= 1);
      const current = await currentDocuments(suite.t, partner.companyId, 'cac_certificate');
      assert.equal(current.length, 1, 'one current document of the type');
      assert.ok(created.some((response) => response.body.data.id === current[0]?.id));
      const profile = await profileOf(suite.t, partner.token);
      assert.equal(
        profile.documents.filter(
          (document: { document_type: string }) => document.document_type === 'cac_certificate',
        ).length,
        1,
      );
    });

    it('accepts every one of several racing uploads of one type (none fails)', async () => {
      const partner = await newPartner(suite, 'signed-in');
      const responses = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          postDocument(suite.t, partner.token, {
            document_type: 'memart',
            file_url: `https://files.acme.ng/memart-${index}.pdf`,
          }),
        ),
      );
      assert.deepEqual(
        responses.map((response) => response.status),
        responses.map(() => 201),
        responses.map((response) => response.text).join('\n'),
      );
      assert.equal((await currentDocuments(suite.t, partner.companyId, 'memart')).length, 1);
    });
  });
}
