import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adminHeaders } from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { PDF_BYTES, PNG_BYTES } from '../support/factories.js';
import { postDocument } from '../support/onboarding.js';
import { newPartner } from '../support/partners.js';
import { adminDocumentUrl } from '../support/paths.js';

for (const dialect of DIALECTS) {
  describe(`document preview for the console [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);

    async function uploaded(bytes: Buffer, name: string) {
      const partner = await newPartner(suite, 'signed-in');
      const upload = await postDocument(
        suite.t,
        partner.token,
        { document_type: 'other' },
        { file: { bytes, name } },
      );
      assert.equal(upload.status, 201, upload.text);
      return { companyId: partner.companyId, documentId: upload.body.data.id as string };
    }
    const fetchFile = (document: { companyId: number; documentId: string }, query = '') =>
      fetch(`${suite.t.url}${adminDocumentUrl(document.companyId, document.documentId, 'file')}${query}`, {
        headers: adminHeaders,
      });

    it('serves a download as an attachment that no page may frame', async () => {
      const response = await fetchFile(await uploaded(PNG_BYTES, 'id.png'));
      assert.equal(response.status, 200);
      assert.match(String(response.headers.get('content-disposition')), /^attachment; filename="other-/);
      assert.equal(response.headers.get('x-frame-options'), 'DENY');
      assert.match(String(response.headers.get('content-security-policy')), /frame-ancestors 'none'/);
      assert.deepEqual(Buffer.from(await response.arrayBuffer()), PNG_BYTES);
    });

    it("serves disposition=inline for this site's preview frame: an image sandboxed, nothing of its own runs", async () => {
      const response = await fetchFile(await uploaded(PNG_BYTES, 'id.png'), '?disposition=inline');
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'image/png');
      assert.match(String(response.headers.get('content-disposition')), /^inline; filename="other-/);
      assert.equal(response.headers.get('x-frame-options'), 'SAMEORIGIN');
      const policy = String(response.headers.get('content-security-policy'));
      assert.match(policy, /frame-ancestors 'self'/);
      assert.match(policy, /default-src 'none'/);
      assert.match(policy, /; sandbox$/);
      assert.doesNotMatch(policy, /script-src|object-src/);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    });

    it("serves a PDF inline without the sandbox Chrome's PDF viewer refuses, still framed by this site only", async () => {
      const response = await fetchFile(await uploaded(PDF_BYTES, 'cac.pdf'), '?disposition=inline');
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'application/pdf');
      const policy = String(response.headers.get('content-security-policy'));
      assert.match(policy, /frame-ancestors 'self'/);
      assert.doesNotMatch(policy, /sandbox/);
      assert.equal(response.headers.get('x-frame-options'), 'SAMEORIGIN');
    });

    it('keeps the API headers on errors and refuses another disposition with 422', async () => {
      const document = await uploaded(PNG_BYTES, 'id.png');
      const missing = await fetchFile(
        { ...document, documentId: '0190c6f2-0000-7000-8000-000000000000' },
        '?disposition=inline',
      );
      assert.equal(missing.status, 404);
      assert.equal(missing.headers.get('x-frame-options'), 'DENY');
      const odd = await fetchFile(document, '?disposition=frame');
      assert.equal(odd.status, 422);
      assert.equal(((await odd.json()) as { error_code: string }).error_code, 'VALIDATION_FAILED');
    });
  });
}
