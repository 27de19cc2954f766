import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { adminHeaders } from '../support/admin.js';
import { DIALECTS, TEST_ADMIN_KEY, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { PDF_BYTES } from '../support/factories.js';
import { postDocument, profileOf } from '../support/onboarding.js';
import { newPartner } from '../support/partners.js';
import {
  ADMIN_PARTNERS,
  AUDIT_EVENTS,
  adminDocumentUrl,
  adminPartnerUrl,
  BUSINESS_INFO,
  OPERATOR_OPENAPI,
} from '../support/paths.js';

for (const dialect of DIALECTS) {
  describe(`submission and back-office review [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);

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
