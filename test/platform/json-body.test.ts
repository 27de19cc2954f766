import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS, useApp } from '../support/app.js';
import { envelopeOf } from '../support/assertions.js';
import { registration } from '../support/factories.js';
import { REGISTER } from '../support/paths.js';
import { rawHttp } from '../support/raw-http.js';

/**
 * JSON bodies are UTF-8 (RFC 8259 8.1): bytes that are not UTF-8 are refused rather than stored
 * with replacement characters, and a body declared in another charset is not read as UTF-8.
 */

for (const dialect of DIALECTS) {
  describe(`JSON body encoding [${dialect.name}]`, { skip: dialect.skip }, () => {
    const context = useApp(dialect.name);

    /** POSTs a registration whose business_name holds `nameBytes`, as raw bytes. */
    async function registerWithBytes(nameBytes: Buffer, contentType = 'application/json') {
      const body = registration({ business_name: '@@NAME@@' });
      const [before, after] = JSON.stringify(body).split('@@NAME@@') as [string, string];
      const bytes = Buffer.concat([Buffer.from(before), nameBytes, Buffer.from(after)]);
      const port = Number(new URL(context.t.url).port);
      const response = await rawHttp(
        port,
        Buffer.concat([
          Buffer.from(
            `POST ${REGISTER} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${contentType}\r\n` +
              `Content-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`,
          ),
          bytes,
        ]),
      );
      return { response, email: body.email };
    }

    async function partnerRows(email: string) {
      return context.t.db
        .selectFrom('partners')
        .select(['id', 'business_name'])
        .where('email', '=', email)
        .execute();
    }

    async function assertRefused(nameBytes: Buffer, contentType: string, status: number, errorCode: string) {
      const { response, email } = await registerWithBytes(nameBytes, contentType);
      const what = `${contentType} ${nameBytes.toString('hex')}: ${response.body}`;
      assert.equal(response.status, status, what);
      assert.equal(envelopeOf(response.body).error_code, errorCode, what);
      assert.deepEqual(await partnerRows(email), [], `nothing stored for ${what}`);
    }

    it('refuses a body that is not valid UTF-8 with 400 MALFORMED_REQUEST and stores nothing', async () => {
      for (const bytes of [
        Buffer.from([0x41, 0xff, 0xfe, 0x42]), // bytes that never occur in UTF-8
        Buffer.from('Caf\xe9 Ltd', 'latin1'), // Latin-1 sent as if UTF-8
        Buffer.from([0x41, 0xc3]), // a truncated sequence
        Buffer.from([0xc0, 0xaf]), // an overlong encoding of "/"
        Buffer.from([0xed, 0xa0, 0x80]), // a UTF-16 surrogate encoded in UTF-8
      ]) {
        await assertRefused(bytes, 'application/json', 400, 'MALFORMED_REQUEST');
        await assertRefused(bytes, 'application/json; charset=utf-8', 400, 'MALFORMED_REQUEST');
      }
    });

    it('refuses a declared charset other than UTF-8 with 415 UNSUPPORTED_MEDIA_TYPE and stores nothing', async () => {
      const ascii = Buffer.from('Acme Payments Ltd');
      for (const contentType of [
        'application/json; charset=latin1',
        'application/json; charset=ISO-8859-1',
        'application/json;charset="iso-8859-1"',
        'application/json; charset=utf-16',
        'application/json; charset=us-ascii',
        'application/json; charset=utf-8; charset=latin1',
      ]) {
        await assertRefused(ascii, contentType, 415, 'UNSUPPORTED_MEDIA_TYPE');
      }
    });

    it('takes UTF-8 however it is declared, and stores the text exactly', async () => {
      const name = 'Ọ̀là Payments – Café 💳';
      for (const contentType of [
        'application/json',
        'application/json; charset=utf-8',
        'application/json; charset=UTF-8',
        'application/json; charset="utf-8"',
        'application/json;charset=utf8',
      ]) {
        const { response, email } = await registerWithBytes(Buffer.from(name), contentType);
        assert.equal(response.status, 201, `${contentType}: ${response.body}`);
        const rows = await partnerRows(email);
        assert.equal(rows.length, 1);
        assert.equal(rows[0]?.business_name, name);
      }
    });
  });
}
