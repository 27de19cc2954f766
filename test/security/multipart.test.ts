import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, DIALECTS, TEST_ADMIN_KEY, type TestDatabase } from '../support/app.js';
import { envelopeOf } from '../support/assertions.js';
import { PDF_BYTES } from '../support/factories.js';
import { Api } from '../support/http.js';
import { newPartner, type PartnerAt } from '../support/partners.js';
import { BUSINESS_INFO, DOCUMENTS, REPRESENTATIVE } from '../support/paths.js';
import { type RawHttpResponse, rawHttp } from '../support/raw-http.js';
import {
  type ServerProcess,
  serverEnv,
  spawnServer,
  stopServer,
  waitUntilReady,
} from '../support/server-process.js';
import { freePort, SmtpSink } from '../support/smtp-sink.js';

/**
 * Multipart bodies that end early, or never end, on the upload endpoints: each is refused with the
 * API's error envelope and the server goes on serving. The server runs as its own process
 * (src/server.ts), because an 'error' event without a listener on any of busboy's streams ends
 * the process, which the test runner would otherwise absorb.
 */

const MiB = 1024 * 1024;
const KiB = 1024;
/** The whole-body cap: one 5 MiB file plus room for the text fields. */
const BODY_CAP = 5 * MiB + 256 * KiB;

const BOUNDARY = 'x';

const part = (name: string, value: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const fileHead = (name: string, filename = 'a.png') =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\n` +
  'Content-Type: application/octet-stream\r\n\r\n';

function multipartRequest(path: string, token: string, body: Buffer | string): Buffer {
  const bytes = Buffer.from(body);
  return Buffer.concat([
    Buffer.from(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${bytes.length}\r\n\r\n`,
    ),
    bytes,
  ]);
}

function assertEnvelope(response: RawHttpResponse, status: number, errorCode: string, what: string): void {
  assert.equal(response.status, status, `${what}: ${response.raw.slice(0, 500)}`);
  const envelope = envelopeOf(response.body);
  assert.equal(envelope.status, 'error', what);
  assert.equal(envelope.error_code, errorCode, `${what}: ${response.body}`);
  assert.equal(response.headers['x-content-type-options'], 'nosniff', `${what}: security headers`);
}

/**
 * Streams a chunked body of `chunkBytes`-sized chunks, waiting for each to be taken, until the server
 * answers or `maxBytes` are sent (then the body is ended). Resolves with the answer and the bytes sent.
 */
function streamChunked(
  port: number,
  head: string,
  first: string,
  maxBytes: number,
  chunkBytes = 64 * KiB,
): Promise<{ response: RawHttpResponse; sent: number }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let sent = 0;
    let answered = false;
    const chunk = (bytes: Buffer | string) =>
      Buffer.concat([
        Buffer.from(`${Buffer.byteLength(bytes).toString(16)}\r\n`),
        Buffer.from(bytes),
        Buffer.from('\r\n'),
      ]);
    const filler = Buffer.alloc(chunkBytes, 0x41);
    // One chunk per turn of the event loop: on loopback the kernel often takes a write at once
    // (write() returns true), and a loop writing until it does not kept this process from reading
    // the server's answer, so a busy machine saw "no answer" (the connection reset after the
    // server's lingering close) or an answer only after 64 MiB.
    const pump = () => {
      if (answered || socket.destroyed) return;
      if (sent >= maxBytes) {
        socket.write('0\r\n\r\n');
        return;
      }
      sent += filler.length;
      if (socket.write(chunk(filler))) setImmediate(pump);
      else socket.once('drain', pump);
    };
    const finish = () => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      socket.destroy();
      const raw = Buffer.concat(received).toString('latin1');
      const end = raw.indexOf('\r\n\r\n');
      if (end === -1) {
        reject(new Error(`no answer after ${sent} bytes: ${JSON.stringify(raw)}`));
        return;
      }
      const [statusLine = '', ...lines] = raw.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        response: {
          status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0),
          headers,
          body: raw.slice(end + 4),
          raw,
        },
        sent,
      });
    };
    const timer = setTimeout(finish, 30_000);
    socket.on('data', (data: Buffer) => {
      received.push(data);
      const raw = Buffer.concat(received).toString('latin1');
      const end = raw.indexOf('\r\n\r\n');
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(raw.slice(0, end))?.[1]);
      if (end !== -1 && Buffer.byteLength(raw.slice(end + 4), 'latin1') >= length) finish();
    });
    socket.on('error', () => undefined);
    socket.on('close', finish);
    socket.on('connect', () => {
      socket.write(`${head}Transfer-Encoding: chunked\r\n\r\n`);
      socket.write(chunk(first));
      pump();
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`multipart bodies that end early or never end [${dialect.name}]`, { skip: dialect.skip }, () => {
    let database: TestDatabase;
    let sink: SmtpSink;
    let server: ServerProcess;
    let api: Api;
    let partner: PartnerAt<'signed-in'>;
    let port: number;

    before(async () => {
      database = await createTestDatabase(dialect.name);
      sink = await new SmtpSink().start();
      port = await freePort();
      server = spawnServer(
        serverEnv(database, {
          LOG_LEVEL: 'warn',
          PORT: String(port),
          ADMIN_API_KEY: TEST_ADMIN_KEY,
          SMTP_URL: sink.url,
        }),
      );
      await waitUntilReady(server);
      api = new Api(server.url);
      partner = await newPartner({ t: { api }, sink }, 'signed-in');
    });
    after(async () => {
      await stopServer(server);
      await sink?.stop();
      await database?.drop();
    });

    /** The same server process still answers, on a new connection, after the request under test. */
    async function assertStillServing(): Promise<void> {
      assert.equal(server.child.exitCode, null, `the server exited:\n${server.output()}`);
      const profile = await api.get(BUSINESS_INFO, { token: partner.token }).catch((error: Error) => {
        assert.fail(`the server stopped serving (${error.message}):\n${server.output()}`);
      });
      assert.equal(profile.status, 200, profile.text);
    }

    const truncatedBodies: Record<string, string> = {
      'a file part under the endpoint file field': fileHead('file'),
      'a file part under the representative file field': fileHead('id_file'),
      'a file part under an unknown field name': fileHead('junk'),
      'a file part after a complete text field': part('document_type', 'other') + fileHead('file'),
      'a text part': `--${BOUNDARY}\r\nContent-Disposition: form-data; name="document_type"\r\n\r\noth`,
      'a part header': `--${BOUNDARY}\r\nContent-Disposition: form-da`,
      'the preamble (no boundary at all)': 'AAAA',
    };

    for (const path of [DOCUMENTS, REPRESENTATIVE]) {
      for (const [what, start] of Object.entries(truncatedBodies)) {
        it(`answers 400 MALFORMED_REQUEST to ${path.split('/').pop()} ending inside ${what}, and keeps serving`, async () => {
          const body = /filename/.test(start) ? `${start}AAAA` : start;
          const response = await rawHttp(port, multipartRequest(path, partner.token, body));
          assertEnvelope(response, 400, 'MALFORMED_REQUEST', what);
          await assertStillServing();
        });
      }
    }

    it('answers the repro from the security test (file part without closing boundary) with 400 and serves the next request on the same server', async () => {
      const body = `--x\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nAAAA`;
      for (let i = 0; i < 3; i++) {
        const response = await rawHttp(port, multipartRequest(DOCUMENTS, partner.token, body));
        assertEnvelope(response, 400, 'MALFORMED_REQUEST', `attempt ${i + 1}`);
      }
      const upload = new FormData();
      upload.append('document_type', 'other');
      upload.append('file', new Blob([PDF_BYTES]), 'other.pdf');
      const accepted = await api.request('POST', DOCUMENTS, {
        token: partner.token,
        body: upload,
      });
      assert.equal(accepted.status, 201, accepted.text);
    });

    it('refuses a Content-Length over the multipart cap with 413 PAYLOAD_TOO_LARGE before reading the body', async () => {
      const response = await rawHttp(
        port,
        `POST ${DOCUMENTS} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${partner.token}\r\n` +
          `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${BODY_CAP + 1}\r\n\r\n`,
      );
      assertEnvelope(response, 413, 'PAYLOAD_TOO_LARGE', 'Content-Length over the cap');
      await assertStillServing();
    });

    it('stops a chunked upload under an unknown file field at the multipart cap with 413 PAYLOAD_TOO_LARGE', async () => {
      const head =
        `POST ${DOCUMENTS} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${partner.token}\r\n` +
        `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\n`;
      const { response, sent } = await streamChunked(
        port,
        head,
        part('document_type', 'other') + fileHead('junk'),
        128 * MiB,
      );
      assertEnvelope(response, 413, 'PAYLOAD_TOO_LARGE', 'chunked body over the cap');
      // `sent` counts what the socket took, kernel buffers included: the answer came long before the end.
      assert.ok(sent < 64 * MiB, `answered only after ${sent} bytes`);
      await assertStillServing();
    });

    it('still accepts a 5 MiB file with text fields beside it (under the cap)', async () => {
      const upload = new FormData();
      upload.append('document_type', 'other');
      upload.append('notes', 'n'.repeat(8 * KiB));
      upload.append(
        'file',
        new Blob([Buffer.concat([PDF_BYTES, Buffer.alloc(5 * MiB - PDF_BYTES.length, 0x20)])]),
        'other.pdf',
      );
      const accepted = await api.request('POST', DOCUMENTS, {
        token: partner.token,
        body: upload,
      });
      assert.equal(accepted.status, 201, accepted.text);
    });
  });
}
