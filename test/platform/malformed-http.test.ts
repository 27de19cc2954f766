import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { adminHeaders } from '../support/admin.js';
import { createTestDatabase, startApp, type TestDatabase } from '../support/app.js';
import { envelopeOf } from '../support/assertions.js';
import { form, PDF_BYTES } from '../support/factories.js';
import { newPartner, type PartnerAt } from '../support/partners.js';
import { API_PREFIX, adminDocumentUrl, DOCUMENTS, LOGIN } from '../support/paths.js';
import { type RawHttpResponse, rawHttp } from '../support/raw-http.js';
import { SmtpSink } from '../support/smtp-sink.js';

/**
 * Requests Node would answer by itself, outside the framework (malformed HTTP, unknown Expect,
 * CONNECT, no Host), and protocol upgrades: every answer is the API's error envelope with the
 * security headers of any API answer. The HTTP layer does not depend on the database: SQLite only.
 */

const SECURITY_HEADERS = [
  'cache-control',
  'content-security-policy',
  'cross-origin-resource-policy',
  'referrer-policy',
  'strict-transport-security',
  'x-content-type-options',
  'x-frame-options',
];

describe('answers Node would give by itself carry the envelope and the security headers', () => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let instance: Awaited<ReturnType<typeof startApp>>;
  let port: number;
  /** The security headers of an ordinary API answer. */
  let expected: Record<string, string>;

  before(async () => {
    database = await createTestDatabase('sqlite');
    sink = await new SmtpSink().start();
    instance = await startApp(database, { env: { SMTP_URL: sink.url, LOG_LEVEL: 'silent' } });
    port = Number(new URL(instance.url).port);
    const ordinary = await fetch(`${instance.url}/healthz`);
    expected = Object.fromEntries(SECURITY_HEADERS.map((name) => [name, ordinary.headers.get(name) ?? '']));
    for (const [name, value] of Object.entries(expected)) assert.ok(value, `${name} on an ordinary answer`);
  });
  after(async () => {
    await instance?.stop();
    await sink?.stop();
    await database?.drop();
  });

  function assertApiAnswer(response: RawHttpResponse, status: number, errorCode: string | null): void {
    const what = response.raw.slice(0, 400);
    assert.equal(response.status, status, what);
    for (const [name, value] of Object.entries(expected)) {
      assert.equal(response.headers[name], value, `${name} on: ${what}`);
    }
    assert.match(response.headers['x-request-id'] ?? '', /.+/, `x-request-id on: ${what}`);
    assert.match(response.headers['content-type'] ?? '', /^application\/json/, what);
    const envelope = envelopeOf(response.body);
    if (errorCode === null) assert.equal(envelope.status, 'success', what);
    else assert.equal(envelope.error_code, errorCode, what);
  }

  async function assertStillServing(): Promise<void> {
    assert.equal((await fetch(`${instance.url}/healthz`)).status, 200);
  }

  it('closes a connection that sent nothing within the header timeout without an answer, and answers one that stalled mid-request with 400', async () => {
    /** Everything the server writes on a connection that sends `sent`, until the server closes it. */
    const received = (sent: string) =>
      new Promise<string>((resolve, reject) => {
        const chunks: Buffer[] = [];
        const socket = net.connect(port, '127.0.0.1', () => socket.write(sent));
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('error', reject);
        socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
      });
    // Both wait out the 10 s header timeout (app.ts) at once.
    const [idle, stalled] = await Promise.all([
      received(''),
      received('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n'),
    ]);
    // A browser's preconnected socket: an answer would be read as the response to its next request.
    assert.equal(idle, '');
    assert.match(stalled, /^HTTP\/1\.1 400 /);
    assert.equal(envelopeOf(stalled.slice(stalled.indexOf('\r\n\r\n') + 4)).error_code, 'MALFORMED_REQUEST');
    await assertStillServing();
  });

  it('answers a malformed request line with 400 MALFORMED_REQUEST', async () => {
    for (const request of [
      'GARBAGE\r\n\r\n',
      'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n',
      'POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
      'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
    ]) {
      assertApiAnswer(await rawHttp(port, request), 400, 'MALFORMED_REQUEST');
    }
    await assertStillServing();
  });

  it('answers an oversized header section with 413 PAYLOAD_TOO_LARGE', async () => {
    const response = await rawHttp(
      port,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(32 * 1024)}\r\n\r\n`,
    );
    assertApiAnswer(response, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('answers an HTTP/1.1 request without Host with 400 MALFORMED_REQUEST (HTTP/1.0 needs none)', async () => {
    assertApiAnswer(await rawHttp(port, 'GET /healthz HTTP/1.1\r\n\r\n'), 400, 'MALFORMED_REQUEST');
    assertApiAnswer(await rawHttp(port, 'GET /healthz HTTP/1.0\r\n\r\n'), 200, null);
  });

  it('ignores an unknown Expect and processes the request as usual (RFC 9110 10.1.1)', async () => {
    assertApiAnswer(
      await rawHttp(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: evil\r\n\r\n'),
      200,
      null,
    );
    const body = '{"email":"nobody@example.com"}';
    const login = await rawHttp(
      port,
      `POST ${LOGIN} HTTP/1.1\r\nHost: x\r\nExpect: evil\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body}`,
    );
    assertApiAnswer(login, 422, 'VALIDATION_FAILED');
  });

  it('still sends 100 Continue for an Expect list that holds 100-continue beside an unknown member', async () => {
    const body = '{"email":"nobody@example.com"}';
    const head =
      `POST ${LOGIN} HTTP/1.1\r\nHost: x\r\nExpect: 100-continue, evil\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const result = await new Promise<string>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(head));
      let received = '';
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1');
        if (received.startsWith('HTTP/1.1 100') && received.endsWith('\r\n\r\n') && !received.includes('422'))
          socket.write(body);
        if (received.includes('"error_code"')) {
          socket.destroy();
          resolve(received);
        }
      });
      socket.on('error', () => resolve(received));
      setTimeout(() => {
        socket.destroy();
        resolve(received);
      }, 5000);
    });
    assert.match(result, /^HTTP\/1\.1 100 Continue\r\n/, result);
    assert.match(result, /\r\n\r\nHTTP\/1\.1 422 /, result);
  });

  it('answers CONNECT with 405 METHOD_NOT_ALLOWED and keeps serving', async () => {
    for (const target of ['example.com:443', '127.0.0.1:22']) {
      const response = await rawHttp(port, `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
      assertApiAnswer(response, 405, 'METHOD_NOT_ALLOWED');
      assert.equal(response.headers['connection'], 'close');
    }
    await assertStillServing();
  });

  it('answers Upgrade requests (websocket, h2c) as plain HTTP, without switching protocols', async () => {
    const websocket = await rawHttp(
      port,
      'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    );
    assertApiAnswer(websocket, 200, null);
    const h2c = await rawHttp(
      port,
      `GET ${API_PREFIX}/nowhere HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n` +
        'Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n',
    );
    assertApiAnswer(h2c, 404, 'NOT_FOUND');
  });

  describe('a malformed request pipelined behind a download in progress', () => {
    let partner: PartnerAt<'signed-in'>;
    let documentUrl: string;
    const fileBytes = Buffer.concat([PDF_BYTES, Buffer.alloc(5 * 1024 * 1024 - PDF_BYTES.length, 0x20)]);

    before(async () => {
      partner = await newPartner({ t: instance, sink }, 'signed-in');
      const upload = await instance.api.request('POST', DOCUMENTS, {
        token: partner.token,
        body: form({ document_type: 'other' }, { file: { bytes: fileBytes, name: 'big.pdf' } }),
      });
      assert.equal(upload.status, 201, upload.text);
      documentUrl = adminDocumentUrl(partner.companyId, upload.body.data.id, 'file');
    });

    it('never writes an error answer into the body of a response that has started', async () => {
      const received = await new Promise<Buffer>((resolve) => {
        const chunks: Buffer[] = [];
        let sentGarbage = false;
        const socket = net.connect(port, '127.0.0.1', () =>
          socket.write(
            `GET ${documentUrl} HTTP/1.1\r\nHost: x\r\nAuthorization: ${adminHeaders.authorization}\r\n\r\n`,
          ),
        );
        socket.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          if (!sentGarbage && Buffer.concat(chunks).includes('\r\n\r\n')) {
            sentGarbage = true;
            // The server reads this once the client has taken some of the file: mid-body.
            socket.pause();
            socket.write('GARBAGE\r\n\r\n');
            setTimeout(() => socket.resume(), 200);
          }
        });
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(Buffer.concat(chunks)));
        setTimeout(() => socket.destroy(), 10_000);
      });
      const text = received.toString('latin1');
      const headEnd = text.indexOf('\r\n\r\n');
      assert.match(text.slice(0, headEnd), /^HTTP\/1\.1 200 /);
      const body = received.subarray(headEnd + 4);
      assert.ok(!body.includes('MALFORMED_REQUEST'), 'an error answer was written into the file');
      assert.ok(fileBytes.subarray(0, body.length).equals(body), 'the body is a prefix of the file');
    });
  });
});
