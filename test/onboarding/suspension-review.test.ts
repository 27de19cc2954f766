import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adminHeaders, adminPost, currentAdminDocument, reviewQueue } from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { PDF_BYTES, PNG_BYTES } from '../support/factories.js';
import { listAll } from '../support/http.js';
import { postDocument, postRepresentative, profileOf, submit } from '../support/onboarding.js';
import { newPartner } from '../support/partners.js';
import { ADMIN_PARTNERS, adminDocumentUrl, BUSINESS_INFO } from '../support/paths.js';
import { reinstate, suspended, WEBHOOK_ENV } from './suspension-kit.js';

for (const dialect of DIALECTS) {
  describe(`suspending and reinstating a partner [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name, { env: WEBHOOK_ENV });

    describe('review queue and list filter', () => {
      it('queues a document an active or a suspended partner uploads until the operator decides it', async () => {
        const active = await newPartner(suite, 'active');
        const paused = await newPartner(suite, 'active');
        await suspended(suite, paused.companyId);
        const pendingBefore = await reviewQueue(suite.t, true);
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

        const pending = await reviewQueue(suite.t, true);
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
        assert.equal((await reviewQueue(suite.t, false)).has(paused.companyId), false);

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

        const decided = await reviewQueue(suite.t, true);
        assert.equal(decided.has(active.companyId), false, 'decided: out of the queue');
        assert.equal(decided.has(paused.companyId), false, 'decided: out of the queue');
        assert.ok((await reviewQueue(suite.t, false)).has(paused.companyId));
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
        assert.deepEqual((await reviewQueue(suite.t, true)).get(partner.companyId)?.pending_review, [
          'documents.valid_id',
        ]);

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
}
