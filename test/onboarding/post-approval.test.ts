import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adminGet, adminPost, currentAdminDocument, reviewQueue } from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { PDF_BYTES, PNG_BYTES } from '../support/factories.js';
import {
  postDocument,
  postRepresentative,
  profileOf,
  setBusinessType,
  submit,
} from '../support/onboarding.js';
import { newPartner } from '../support/partners.js';
import { ADMIN_PARTNERS, adminDocumentUrl, BUSINESS_INFO } from '../support/paths.js';

for (const dialect of DIALECTS) {
  describe(`changes after approval and the review queue [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);

    it('keeps an approved partner active when it uploads a new document, and queues the document for review until decided', async () => {
      const partner = await newPartner(suite, 'active');
      assert.equal(
        (await reviewQueue(suite.t, true)).has(partner.companyId),
        false,
        'nothing awaits review yet',
      );

      const upload = await postDocument(
        suite.t,
        partner.token,
        { document_type: 'memart' },
        { file: { bytes: PDF_BYTES } },
      );
      assert.equal(upload.status, 201, upload.text);
      const profile = await profileOf(suite.t, partner.token);
      assert.equal(profile.onboarding_status, 'active');
      assert.deepEqual(profile.requirements.pending_review, ['documents.memart']);

      const pending = await reviewQueue(suite.t, true);
      assert.deepEqual(pending.get(partner.companyId)?.pending_review, ['documents.memart']);
      assert.equal(pending.get(partner.companyId)?.onboarding_status, 'active');
      assert.equal((await reviewQueue(suite.t, false)).has(partner.companyId), false);

      const memart = await currentAdminDocument(suite.t, partner.companyId, 'memart');
      const approved = await adminPost(suite.t, adminDocumentUrl(partner.companyId, memart.id, 'approve'));
      assert.equal(approved.status, 200, approved.text);
      assert.equal(
        (await reviewQueue(suite.t, true)).has(partner.companyId),
        false,
        'decided: out of the queue',
      );
      assert.ok((await reviewQueue(suite.t, false)).has(partner.companyId));
      assert.deepEqual((await profileOf(suite.t, partner.token)).requirements.pending_review, []);
    });

    it('queues a new representative of an approved partner (its ID is a new valid_id pending review)', async () => {
      const partner = await newPartner(suite, 'active');
      const saved = await postRepresentative(
        suite.t,
        partner.token,
        { first_name: 'Bisi', last_name: 'Adeyemi' },
        {
          id_file: { bytes: PNG_BYTES, name: 'id.png', type: 'image/png' },
        },
      );
      assert.equal(saved.status, 200, saved.text);
      const profile = await profileOf(suite.t, partner.token);
      assert.equal(profile.onboarding_status, 'active');
      assert.deepEqual(profile.requirements.pending_review, ['documents.valid_id']);
      assert.deepEqual((await reviewQueue(suite.t, true)).get(partner.companyId)?.pending_review, [
        'documents.valid_id',
      ]);
    });

    it('lists applications under review as pending, and applications in progress (not submitted) as not', async () => {
      const submitted = await newPartner(suite, 'submitted');
      const inProgress = await newPartner(suite, 'signed-in');
      await setBusinessType(suite.t, inProgress.token, 'limited_liability');
      await postDocument(
        suite.t,
        inProgress.token,
        { document_type: 'memart' },
        { file: { bytes: PDF_BYTES } },
      );
      const pending = await reviewQueue(suite.t, true);
      assert.deepEqual(pending.get(submitted.companyId)?.pending_review.slice(0, 1), ['application']);
      assert.equal(pending.has(inProgress.companyId), false);
      assert.deepEqual((await reviewQueue(suite.t, false)).get(inProgress.companyId)?.pending_review, [
        'documents.memart',
      ]);
    });

    it('answers 422 naming pending_review for a value that is not a boolean', async () => {
      const response = await adminGet(suite.t, `${ADMIN_PARTNERS}?pending_review=maybe`);
      assert.equal(response.status, 422, response.text);
      assert.ok(response.body.errors?.['pending_review'], response.text);
    });

    it('never writes a profile change after the application was submitted, however the two race (5 rounds of 15)', async () => {
      for (let round = 0; round < 5; round++) {
        const partner = await newPartner(suite, 'signed-in');
        await setBusinessType(suite.t, partner.token, 'limited_liability');
        await postRepresentative(suite.t, partner.token);
        for (const documentType of ['cac_certificate', 'memart']) {
          await postDocument(
            suite.t,
            partner.token,
            { document_type: documentType },
            { file: { bytes: PDF_BYTES } },
          );
        }
        const updates = Array.from({ length: 15 }, (_, index) =>
          suite.t.api.put(
            BUSINESS_INFO,
            { address: `${round}-${index} Marina, Lagos` },
            { token: partner.token },
          ),
        );
        const [submission, ...answers] = await Promise.all([submit(suite.t, partner.token), ...updates]);
        assert.equal(submission.status, 200, submission.text);
        for (const answer of answers) {
          assert.ok(
            answer.status === 200 ||
              (answer.status === 409 && answer.body.error_code === 'ONBOARDING_LOCKED'),
            answer.text,
          );
        }
        const final = await profileOf(suite.t, partner.token);
        assert.equal(final.onboarding_status, 'under_review');
        assert.equal(
          final.address,
          submission.body.data.address,
          `round ${round}: the profile changed after submission`,
        );
      }
    });
  });
}
