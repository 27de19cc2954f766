import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adminPost } from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { GUIDE_BUSINESS_TYPES, GUIDE_CHECKLISTS, profileOf } from '../support/onboarding.js';
import { createAccount, newPartner } from '../support/partners.js';
import { adminPartnerUrl, BUSINESS_INFO } from '../support/paths.js';
import { auditActions } from '../support/records.js';

for (const dialect of DIALECTS) {
  describe(`onboarding profile [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);

    it('starts with legal_business_name = business_name, no business_type, an empty checklist and nothing on file', async () => {
      const partner = await newPartner(suite, 'signed-in', {
        business_name: 'Zebra Logistics Ltd',
        phone: '+234 802 000 1111',
      });
      const response = await suite.t.api.get(BUSINESS_INFO, { token: partner.token });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.status, 'success');
      const profile = response.body.data;
      assert.equal(profile.company_id, partner.companyId);
      assert.equal(profile.business_name, 'Zebra Logistics Ltd');
      assert.equal(profile.legal_business_name, 'Zebra Logistics Ltd');
      assert.equal(profile.business_type, null);
      assert.equal(profile.rc_number, null);
      assert.equal(profile.email, partner.email);
      assert.equal(profile.phone, '+2348020001111', 'in E.164');
      assert.equal(profile.onboarding_status, 'in_progress');
      assert.equal(profile.environment, 'sandbox');
      assert.equal(profile.representative, null);
      assert.deepEqual(profile.documents, []);
      assert.deepEqual(profile.document_checklist, {});
      assert.equal(profile.review_notes, null);
      assert.ok(profile.requirements.currently_due.includes('business_type'), response.text);
      assert.ok(profile.requirements.currently_due.includes('representative'), response.text);
      assert.deepEqual(profile.requirements.pending_review, []);
      assert.deepEqual(profile.requirements.errors, []);
    });

    it('answers 401 UNAUTHENTICATED without a session token or with an unknown one', async () => {
      assertError(await suite.t.api.get(BUSINESS_INFO), 401, 'UNAUTHENTICATED');
      assertError(await suite.t.api.get(BUSINESS_INFO, { token: 'not-a-session' }), 401, 'UNAUTHENTICATED');
      assertError(
        await suite.t.api.put(BUSINESS_INFO, { business_type: 'partnership' }),
        401,
        'UNAUTHENTICATED',
      );
    });

    it('answers 405 METHOD_NOT_ALLOWED to an unsupported method and 415 to a multipart update', async () => {
      const partner = await newPartner(suite, 'signed-in');
      const deleted = await suite.t.api.delete(BUSINESS_INFO, { token: partner.token });
      assertError(deleted, 405, 'METHOD_NOT_ALLOWED');
      const form = new FormData();
      form.append('business_type', 'partnership');
      const multipart = await suite.t.api.request('PUT', BUSINESS_INFO, { token: partner.token, body: form });
      assertError(multipart, 415, 'UNSUPPORTED_MEDIA_TYPE');
      assert.equal((await profileOf(suite.t, partner.token)).business_type, null);
    });

    it("gives exactly the partner guide's checklist for each business_type", async () => {
      const partner = await newPartner(suite, 'signed-in');
      for (const businessType of GUIDE_BUSINESS_TYPES) {
        const expected = Object.fromEntries(GUIDE_CHECKLISTS[businessType].map((type) => [type, 'missing']));
        const updated = await suite.t.api.put(
          BUSINESS_INFO,
          { business_type: businessType },
          { token: partner.token },
        );
        assert.equal(updated.status, 200, updated.text);
        assert.equal(updated.body.data.business_type, businessType);
        assert.deepEqual(updated.body.data.document_checklist, expected, businessType);
        const read = await profileOf(suite.t, partner.token);
        assert.deepEqual(read.document_checklist, expected, businessType);
        for (const type of GUIDE_CHECKLISTS[businessType]) {
          assert.ok(
            read.requirements.currently_due.includes(`documents.${type}`),
            `${businessType}: ${type}`,
          );
        }
        assert.ok(!read.requirements.currently_due.includes('business_type'));
      }
    });

    it('changes only the fields sent in a partial update and audits which fields changed', async () => {
      const partner = await newPartner(suite, 'signed-in', { business_name: 'Partial Update Ltd' });
      const first = await suite.t.api.put(
        BUSINESS_INFO,
        { business_type: 'sole_proprietorship', rc_number: 'BN42' },
        { token: partner.token },
      );
      assert.equal(first.status, 200, first.text);
      const second = await suite.t.api.put(
        BUSINESS_INFO,
        { address: '3 Broad Street, Lagos', website: 'https://partial.example.ng' },
        { token: partner.token },
      );
      assert.equal(second.status, 200, second.text);
      const profile = await profileOf(suite.t, partner.token);
      assert.equal(profile.business_type, 'sole_proprietorship');
      assert.equal(profile.rc_number, 'BN42');
      assert.equal(profile.legal_business_name, 'Partial Update Ltd');
      assert.equal(profile.business_name, 'Partial Update Ltd');
      assert.equal(profile.address, '3 Broad Street, Lagos');
      assert.equal(profile.website, 'https://partial.example.ng');

      const renamed = await suite.t.api.put(
        BUSINESS_INFO,
        { legal_business_name: '  Partial Update Limited  ' },
        { token: partner.token },
      );
      assert.equal(renamed.status, 200, renamed.text);
      assert.equal(renamed.body.data.legal_business_name, 'Partial Update Limited', 'strings are trimmed');
      assert.equal(
        renamed.body.data.business_name,
        'Partial Update Ltd',
        'business_name is not the legal name',
      );
      assert.equal(renamed.body.data.rc_number, 'BN42');

      const updates = (await auditActions(suite.t, partner.companyId)).filter(
        (event) => event.action === 'onboarding.profile_updated',
      );
      assert.deepEqual(
        updates.map((event) => (JSON.parse(event.metadata ?? '{}') as { fields: string[] }).fields.sort()),
        [['business_type', 'rc_number'], ['address', 'website'], ['legal_business_name']],
      );
    });

    it('ignores unknown fields instead of assigning them', async () => {
      const partner = await newPartner(suite, 'signed-in');
      const response = await suite.t.api.put(
        BUSINESS_INFO,
        { onboarding_status: 'active', email: 'hijack@example.com', company_id: 1, address: '1 Real Road' },
        { token: partner.token },
      );
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.data.onboarding_status, 'in_progress');
      assert.equal(response.body.data.email, partner.email);
      assert.equal(response.body.data.company_id, partner.companyId);
      assert.equal(response.body.data.address, '1 Real Road');
    });

    it('lets a partner that never submitted correct business_name and phone, by the rules of registration, audited with the values replaced', async () => {
      const partner = await newPartner(suite, 'sandbox', {
        business_name: 'Typo Paymnets Ltd',
        phone: '+234 803 000 0000',
      });
      const response = await suite.t.api.put(
        BUSINESS_INFO,
        { business_name: '  Typo Payments Ltd ', phone: '+234 802 111 2222' },
        { token: partner.token },
      );
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.data.business_name, 'Typo Payments Ltd');
      assert.equal(response.body.data.phone, '+2348021112222');
      assert.equal(
        response.body.data.legal_business_name,
        'Typo Paymnets Ltd',
        'the legal name is its own field',
      );
      const account = await createAccount(suite.t, partner.sandboxKey);
      assert.match(account.account_name, /^Typo Payments Ltd\//, 'new accounts carry the corrected name');

      for (const [body, field] of [
        [{ business_name: 'B'.repeat(192) }, 'business_name'],
        [{ business_name: 'Acme \u202Edetimil' }, 'business_name'],
        [{ phone: '123' }, 'phone'],
        [{ phone: '+234 803 123 4567 ext 9' }, 'phone'],
      ] as const) {
        assertError(
          await suite.t.api.put(BUSINESS_INFO, body, { token: partner.token }),
          422,
          'VALIDATION_FAILED',
          { fields: [field], what: JSON.stringify(body) },
        );
      }
      const updates = (await auditActions(suite.t, partner.companyId)).filter(
        (event) => event.action === 'onboarding.profile_updated',
      );
      assert.equal(updates.length, 1, 'refused changes are not audited');
      assert.deepEqual(JSON.parse(updates[0]?.metadata ?? '{}'), {
        fields: ['business_name', 'phone'],
        previous: { business_name: 'Typo Paymnets Ltd', phone: '+2348030000000' },
      });
    });

    it('answers 409 ONBOARDING_LOCKED to business_name or phone once the application was submitted, also after changes were requested', async () => {
      const partner = await newPartner(suite, 'submitted', { business_name: 'Submitted Name Ltd' });
      for (const change of [{ business_name: 'Renamed Ltd' }, { phone: '+234 802 000 0000' }]) {
        assertError(
          await suite.t.api.put(BUSINESS_INFO, change, { token: partner.token }),
          409,
          'ONBOARDING_LOCKED',
        );
      }
      const changes = await adminPost(suite.t, adminPartnerUrl(partner.companyId, 'request-changes'), {
        reason: 'Upload a clearer CAC certificate.',
      });
      assert.equal(changes.status, 200, changes.text);
      assert.equal(changes.body.data.onboarding_status, 'in_progress');
      for (const change of [
        { business_name: 'Renamed Ltd' },
        { phone: '+234 802 000 0000' },
        { phone: '+234 802 000 0000', address: '3 Broad Street' },
      ]) {
        const refused = await suite.t.api.put(BUSINESS_INFO, change, { token: partner.token });
        assertError(refused, 409, 'ONBOARDING_LOCKED', { what: JSON.stringify(change) });
        assert.match(refused.body.message, /first submitted/, refused.text);
      }
      const legal = await suite.t.api.put(
        BUSINESS_INFO,
        { legal_business_name: 'Submitted Name Limited' },
        { token: partner.token },
      );
      assert.equal(legal.status, 200, 'the rest of the profile is open again');
      const profile = await profileOf(suite.t, partner.token);
      assert.equal(profile.business_name, 'Submitted Name Ltd');
      assert.equal(profile.phone, '+2348031234567');
      assert.equal(profile.address, null);

      const active = await newPartner(suite, 'active');
      assertError(
        await suite.t.api.put(BUSINESS_INFO, { business_name: 'Renamed Ltd' }, { token: active.token }),
        409,
        'ONBOARDING_LOCKED',
      );
    });

    it('answers 422 VALIDATION_FAILED to an update with no field to change: empty, blank, or unknown fields only', async () => {
      const partner = await newPartner(suite, 'signed-in');
      for (const body of [
        {},
        { address: '   ' },
        { nickname: 'Acme', onboarding_status: 'active' },
        { company_id: 1, address: '' },
      ]) {
        const response = await suite.t.api.put(BUSINESS_INFO, body, { token: partner.token });
        assertError(response, 422, 'VALIDATION_FAILED', { what: JSON.stringify(body) });
        assert.deepEqual(
          response.body.errors,
          { body: ['send at least one field to change'] },
          response.text,
        );
      }
      const updates = (await auditActions(suite.t, partner.companyId)).filter(
        (event) => event.action === 'onboarding.profile_updated',
      );
      assert.deepEqual(updates, [], 'nothing was updated');
    });

    it('accepts rc_number RC, BN or IT followed by 1 to 8 digits', async () => {
      const partner = await newPartner(suite, 'signed-in');
      for (const rcNumber of ['RC123', 'BN1', 'IT12345678', 'RC00000001']) {
        const response = await suite.t.api.put(
          BUSINESS_INFO,
          { rc_number: rcNumber },
          { token: partner.token },
        );
        assert.equal(response.status, 200, `${rcNumber}: ${response.text}`);
        assert.equal(response.body.data.rc_number, rcNumber);
      }
    });

    it('refuses a malformed rc_number with 422 naming rc_number', async () => {
      const partner = await newPartner(suite, 'signed-in');
      for (const rcNumber of ['RC', 'XX123', 'RC123456789', 'rc123', 'RC12a', '123', 'RC-123']) {
        const response = await suite.t.api.put(
          BUSINESS_INFO,
          { rc_number: rcNumber },
          { token: partner.token },
        );
        assertError(response, 422, 'VALIDATION_FAILED', { fields: ['rc_number'] });
      }
      assert.equal((await profileOf(suite.t, partner.token)).rc_number, null);
    });

    it('refuses a business_type outside the enum with 422 naming business_type', async () => {
      const partner = await newPartner(suite, 'signed-in');
      for (const businessType of ['llc', 'LIMITED_LIABILITY', 'ngo', 7, null]) {
        const response = await suite.t.api.put(
          BUSINESS_INFO,
          { business_type: businessType },
          { token: partner.token },
        );
        assertError(response, 422, 'VALIDATION_FAILED', { fields: ['business_type'] });
      }
    });

    it('refuses a website that is not an https URL with 422 naming website', async () => {
      const partner = await newPartner(suite, 'signed-in');
      for (const website of [
        'http://acme.ng',
        'acme.ng',
        'ftp://acme.ng',
        'https://',
        'javascript:alert(1)',
      ]) {
        const response = await suite.t.api.put(BUSINESS_INFO, { website }, { token: partner.token });
        assertError(response, 422, 'VALIDATION_FAILED', { fields: ['website'] });
      }
      const ok = await suite.t.api.put(
        BUSINESS_INFO,
        { website: 'https://acme.ng/about' },
        { token: partner.token },
      );
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.body.data.website, 'https://acme.ng/about');
    });

    it('refuses over-long legal_business_name (191) and address (255) and accepts the maximum', async () => {
      const partner = await newPartner(suite, 'signed-in');
      assertError(
        await suite.t.api.put(
          BUSINESS_INFO,
          { legal_business_name: 'L'.repeat(192) },
          { token: partner.token },
        ),
        422,
        'VALIDATION_FAILED',
        { fields: ['legal_business_name'] },
      );
      assertError(
        await suite.t.api.put(BUSINESS_INFO, { address: 'A'.repeat(256) }, { token: partner.token }),
        422,
        'VALIDATION_FAILED',
        { fields: ['address'] },
      );
      const longest = await suite.t.api.put(
        BUSINESS_INFO,
        { legal_business_name: 'L'.repeat(191), address: 'A'.repeat(255) },
        { token: partner.token },
      );
      assert.equal(longest.status, 200, longest.text);
      assert.equal(longest.body.data.legal_business_name.length, 191);
      assert.equal(longest.body.data.address.length, 255);
    });

    it('changes nothing when any field of the update is invalid', async () => {
      const partner = await newPartner(suite, 'signed-in', { business_name: 'Atomic Update Ltd' });
      const response = await suite.t.api.put(
        BUSINESS_INFO,
        { business_type: 'partnership', legal_business_name: 'Atomic Limited', rc_number: 'XX1' },
        { token: partner.token },
      );
      assertError(response, 422, 'VALIDATION_FAILED', { fields: ['rc_number'] });
      assert.deepEqual(Object.keys(response.body.errors ?? {}), ['rc_number']);
      const profile = await profileOf(suite.t, partner.token);
      assert.equal(profile.business_type, null);
      assert.equal(profile.legal_business_name, 'Atomic Update Ltd');
    });

    it('answers 409 ONBOARDING_LOCKED to a profile change while under_review, changing nothing', async () => {
      const partner = await newPartner(suite, 'submitted');
      for (const change of [
        { address: '9 New Road' },
        { business_type: 'partnership' },
        { website: 'https://x.ng' },
      ]) {
        const response = await suite.t.api.put(BUSINESS_INFO, change, { token: partner.token });
        assertError(response, 409, 'ONBOARDING_LOCKED');
      }
      const profile = await profileOf(suite.t, partner.token);
      assert.equal(profile.business_type, 'limited_liability');
      assert.equal(profile.address, null);
      assert.equal(profile.onboarding_status, 'under_review');
    });

    it('answers 409 ONBOARDING_LOCKED to a profile change once rejected', async () => {
      const partner = await newPartner(suite, 'rejected');
      assertError(
        await suite.t.api.put(BUSINESS_INFO, { address: '9 New Road' }, { token: partner.token }),
        409,
        'ONBOARDING_LOCKED',
      );
    });

    it('lets an active partner change only address and website', async () => {
      const partner = await newPartner(suite, 'active');
      const allowed = await suite.t.api.put(
        BUSINESS_INFO,
        { address: '1 Approved Avenue, Abuja', website: 'https://approved.example.ng' },
        { token: partner.token },
      );
      assert.equal(allowed.status, 200, allowed.text);
      assert.equal(allowed.body.data.address, '1 Approved Avenue, Abuja');
      assert.equal(allowed.body.data.website, 'https://approved.example.ng');
      assert.equal(allowed.body.data.onboarding_status, 'active');

      for (const change of [
        { legal_business_name: 'Renamed After Approval Ltd' },
        { business_type: 'public_limited' },
        { rc_number: 'RC999' },
        { address: '2 Mixed Change Road', rc_number: 'RC998' },
      ]) {
        const response = await suite.t.api.put(BUSINESS_INFO, change, { token: partner.token });
        assertError(response, 409, 'ONBOARDING_LOCKED');
      }
      const profile = await profileOf(suite.t, partner.token);
      assert.equal(profile.legal_business_name, 'Acme Payments Limited');
      assert.equal(profile.business_type, 'limited_liability');
      assert.equal(profile.rc_number, 'RC1234567');
      assert.equal(profile.address, '1 Approved Avenue, Abuja');
    });
  });
}
