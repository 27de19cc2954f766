import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS, useApp } from '../support/app.js';
import { PDF_BYTES } from '../support/factories.js';
import { postDocument, postRepresentative, profileOf } from '../support/onboarding.js';
import { newPartner } from '../support/partners.js';
import { BUSINESS_INFO } from '../support/paths.js';
import { currentDocuments } from '../support/records.js';

for (const dialect of DIALECTS) {
  describe(`onboarding tenancy [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);

    it("never shows partner A's profile, representative or documents to partner B", async () => {
      const a = await newPartner(suite, 'signed-in', { business_name: 'Alpha Tenancy Ltd' });
      const b = await newPartner(suite, 'signed-in', { business_name: 'Bravo Tenancy Ltd' });
      await suite.t.api.put(
        BUSINESS_INFO,
        { business_type: 'public_limited', rc_number: 'RC7' },
        { token: a.token },
      );
      await postRepresentative(suite.t, a.token, { first_name: 'Alphonso', email: 'alphonso@alpha.ng' });
      const upload = await postDocument(
        suite.t,
        a.token,
        { document_type: 'memart' },
        { file: { bytes: PDF_BYTES } },
      );
      assert.equal(upload.status, 201, upload.text);

      const response = await suite.t.api.get(BUSINESS_INFO, { token: b.token });
      assert.equal(response.status, 200, response.text);
      const profile = response.body.data;
      assert.equal(profile.company_id, b.companyId);
      assert.equal(profile.business_name, 'Bravo Tenancy Ltd');
      assert.equal(profile.email, b.email);
      assert.equal(profile.business_type, null);
      assert.equal(profile.rc_number, null);
      assert.equal(profile.representative, null);
      assert.deepEqual(profile.documents, []);
      for (const leak of [
        'Alpha Tenancy',
        'Alphonso',
        'alphonso@alpha.ng',
        a.email,
        upload.body.data.id,
        'RC7',
      ]) {
        assert.ok(!response.text.includes(leak), `${leak} leaked to B`);
      }
    });

    it("keeps each partner's writes to itself", async () => {
      const a = await newPartner(suite, 'signed-in');
      const b = await newPartner(suite, 'signed-in');
      const aMemart = await postDocument(
        suite.t,
        a.token,
        { document_type: 'memart' },
        { file: { bytes: PDF_BYTES } },
      );
      const bMemart = await postDocument(
        suite.t,
        b.token,
        { document_type: 'memart' },
        { file: { bytes: PDF_BYTES } },
      );
      assert.equal(bMemart.status, 201, bMemart.text);
      await postRepresentative(suite.t, b.token, { first_name: 'Beatrice' });
      await suite.t.api.put(BUSINESS_INFO, { legal_business_name: 'Bravo Legal Ltd' }, { token: b.token });

      const [aCurrent] = await currentDocuments(suite.t, a.companyId, 'memart');
      assert.equal(aCurrent?.id, aMemart.body.data.id, "B's upload does not supersede A's document");
      const aProfile = await profileOf(suite.t, a.token);
      assert.equal(aProfile.representative, null);
      assert.notEqual(aProfile.legal_business_name, 'Bravo Legal Ltd');
      assert.deepEqual(
        aProfile.documents.map((document: { id: string }) => document.id),
        [aMemart.body.data.id],
      );
      const bProfile = await profileOf(suite.t, b.token);
      assert.equal(bProfile.company_id, b.companyId);
      assert.ok(!bProfile.documents.some((document: { id: string }) => document.id === aMemart.body.data.id));
    });
  });
}
