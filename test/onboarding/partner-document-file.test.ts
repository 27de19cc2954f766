import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { adminPost } from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { PDF_BYTES, PNG_BYTES } from '../support/factories.js';
import { postDocument } from '../support/onboarding.js';
import { newPartner } from '../support/partners.js';
import { adminDocumentUrl, documentFileUrl } from '../support/paths.js';

/** Bytes that differ on every call, so each upload is a file of its own. */
let serial = 0;
const uniquePdf = () => Buffer.concat([PDF_BYTES, Buffer.from(`partner download ${++serial}\n`)]);

for (const dialect of DIALECTS) {
  describe(`a partner downloads its own documents [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);

    const upload = async (token: string, documentType: string, bytes: Buffer) => {
      const response = await postDocument(
        suite.t,
        token,
        { document_type: documentType },
        { file: { bytes } },
      );
      assert.equal(response.status, 201, response.text);
      return response.body.data.id as string;
    };
    const download = async (token: string, documentId: string) => {
      const response = await fetch(`${suite.t.url}${documentFileUrl(documentId)}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return { response, bytes: Buffer.from(await response.arrayBuffer()) };
    };

    it('streams the bytes it uploaded as an attachment with the detected type, unframeable and sandboxed', async () => {
      const partner = await newPartner(suite, 'signed-in');
      const pdf = uniquePdf();
      const pdfId = await upload(partner.token, 'memart', pdf);
      const { response, bytes } = await download(partner.token, pdfId);
      assert.equal(response.status, 200);
      assert.deepEqual(bytes, pdf);
      assert.equal(response.headers.get('content-type'), 'application/pdf');
      assert.equal(response.headers.get('content-length'), String(pdf.length));
      assert.equal(response.headers.get('content-disposition'), `attachment; filename="memart-${pdfId}.pdf"`);
      assert.match(response.headers.get('content-security-policy') ?? '', /sandbox/);
      assert.match(response.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);

      const png = Buffer.concat([PNG_BYTES, Buffer.from('partner png')]);
      const pngId = await upload(partner.token, 'proof_of_address', png);
      const image = await download(partner.token, pngId);
      assert.equal(image.response.status, 200);
      assert.equal(image.response.headers.get('content-type'), 'image/png');
      assert.deepEqual(image.bytes, png);
    });

    it("answers 404 for another partner's document, an unknown id, a URL document and an upload superseded before review", async () => {
      const owner = await newPartner(suite, 'signed-in');
      const other = await newPartner(suite, 'signed-in');
      const ownersId = await upload(owner.token, 'memart', uniquePdf());
      assertError(await suite.t.api.get(documentFileUrl(ownersId), { token: other.token }), 404, 'NOT_FOUND');
      assertError(
        await suite.t.api.get(documentFileUrl(randomUUID()), { token: owner.token }),
        404,
        'NOT_FOUND',
      );

      const linked = await postDocument(suite.t, owner.token, {
        document_type: 'cac_certificate',
        file_url: 'https://files.example.com/cac.pdf',
      });
      assert.equal(linked.status, 201, linked.text);
      assertError(
        await suite.t.api.get(documentFileUrl(linked.body.data.id), { token: owner.token }),
        404,
        'NOT_FOUND',
      );

      await upload(owner.token, 'memart', uniquePdf());
      assertError(await suite.t.api.get(documentFileUrl(ownersId), { token: owner.token }), 404, 'NOT_FOUND');
    });

    it('keeps a decided document downloadable after it is replaced, and takes session tokens only', async () => {
      const partner = await newPartner(suite, 'sandbox');
      const first = uniquePdf();
      const firstId = await upload(partner.token, 'memart', first);
      const rejected = await adminPost(suite.t, adminDocumentUrl(partner.companyId, firstId, 'reject'), {
        reason: 'Unsigned.',
      });
      assert.equal(rejected.status, 200, rejected.text);
      await upload(partner.token, 'memart', uniquePdf());
      const kept = await download(partner.token, firstId);
      assert.equal(kept.response.status, 200);
      assert.deepEqual(kept.bytes, first);

      assertError(await suite.t.api.get(documentFileUrl(firstId)), 401, 'UNAUTHENTICATED');
      assertError(
        await suite.t.api.get(documentFileUrl(firstId), { token: partner.sandboxKey }),
        403,
        'FORBIDDEN',
      );
    });
  });
}
