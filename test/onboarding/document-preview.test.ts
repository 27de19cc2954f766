import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adminHeaders } from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { PDF_BYTES, PNG_BYTES } from '../support/factories.js';
import { postDocument } from '../support/onboarding.js';
import { newPartner } from '../support/partners.js';
import { adminDocumentUrl } from '../support/paths.js';

for (const dialect of DIALECTS) {
  describe(`document file downloads [${dialect.name}]`, { skip: dialect.skip }, () => {
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

    for (const [kind, bytes, type] of [
      ['an image', PNG_BYTES, 'image/png'],
      ['a PDF', PDF_BYTES, 'application/pdf'],
    ] as const) {
      it(`serves ${kind} as an attachment that no page may frame, sandboxed should a browser show it anyway`, async () => {
        const response = await fetchFile(await uploaded(bytes, type === 'image/png' ? 'id.png' : 'cac.pdf'));
        assert.equal(response.status, 200);
        assert.equal(response.headers.get('content-type'), type);
        assert.match(String(response.headers.get('content-disposition')), /^attachment; filename="other-/);
        assert.equal(response.headers.get('x-frame-options'), 'DENY');
        assert.equal(
          response.headers.get('content-security-policy'),
          "default-src 'none'; frame-ancestors 'none'; sandbox",
        );
        assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
        assert.deepEqual(Buffer.from(await response.arrayBuffer()), bytes);
      });
    }

    it('ignores the former disposition=inline: still an attachment, unframeable and sandboxed', async () => {
      const response = await fetchFile(await uploaded(PDF_BYTES, 'cac.pdf'), '?disposition=inline');
      assert.equal(response.status, 200);
      assert.match(String(response.headers.get('content-disposition')), /^attachment; /);
      assert.equal(response.headers.get('x-frame-options'), 'DENY');
      assert.match(
        String(response.headers.get('content-security-policy')),
        /frame-ancestors 'none'; sandbox$/,
      );
    });

    it('keeps the API headers, without the sandbox, on errors', async () => {
      const document = await uploaded(PNG_BYTES, 'id.png');
      const missing = await fetchFile({ ...document, documentId: '0190c6f2-0000-7000-8000-000000000000' });
      assert.equal(missing.status, 404);
      assert.equal(missing.headers.get('x-frame-options'), 'DENY');
      assert.equal(
        missing.headers.get('content-security-policy'),
        "default-src 'none'; frame-ancestors 'none'",
      );
      assert.equal(((await missing.json()) as { error_code: string }).error_code, 'NOT_FOUND');
    });
  });
}
