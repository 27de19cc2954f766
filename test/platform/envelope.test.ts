import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { registration, uniqueEmail } from '../support/factories.js';
import type { ApiResponse } from '../support/http.js';
import { API_PREFIX, BUSINESS_INFO, LOGIN, OPENAPI, REGISTER } from '../support/paths.js';
import { type RawResponse, rawRequest } from '../support/raw-http.js';

const ENVELOPE_KEYS = new Set(['status', 'message', 'data', 'error_code', 'errors']);
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The error envelope (docs/partner-guide.md, "Responses and errors"), with nothing of the framework,
 * the database or a stack in it.
 */
function assertCleanError(response: ApiResponse | RawResponse, status: number, errorCode: string): void {
  assert.equal(response.status, status, response.text);
  const body = JSON.parse(response.text) as Record<string, unknown>;
  assert.equal(body['status'], 'error', response.text);
  assert.equal(body['error_code'], errorCode, response.text);
  assert.equal(typeof body['message'], 'string');
  for (const key of Object.keys(body)) assert.ok(ENVELOPE_KEYS.has(key), `unexpected member ${key}`);
  assert.doesNotMatch(
    response.text,
    /FST_|\bat [\w.<>]+ \(|SQLITE|syntax error|node_modules|Unexpected token/,
  );
  assert.match(String(response.headers.get('content-type')), /^application\/json/);
  assert.match(String(response.headers.get('x-request-id')), REQUEST_ID);
}

/** Writes raw bytes on a fresh connection and splits whatever comes back. */
function rawExchange(
  port: number,
  raw: string,
): Promise<{ statusLine: string; headers: string; body: string }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(raw));
    let received = '';
    socket.on('data', (chunk) => {
      received += String(chunk);
    });
    const done = () => {
      const [head = '', body = ''] = received.split('\r\n\r\n', 2);
      const [statusLine = '', ...headers] = head.split('\r\n');
      resolve({ statusLine, headers: headers.join('\n'), body });
    };
    socket.on('close', done);
    socket.on('error', () => undefined);
  });
}

for (const dialect of DIALECTS) {
  describe(`HTTP envelope and platform behaviour [${dialect.name}]`, { skip: dialect.skip }, () => {
    const app = useApp(dialect.name);

    const rawJson = (path: string, body: string, headers: Record<string, string> = {}) =>
      app.t.api.request('POST', path, { body, headers: { 'content-type': 'application/json', ...headers } });

    it('puts a distinct X-Request-Id on every response, successes and errors alike', async () => {
      const responses = [
        await app.t.api.get('/healthz'),
        await app.t.api.get('/readyz'),
        await app.t.api.get(OPENAPI),
        await app.t.api.get(`${API_PREFIX}/no-such-route`),
        await app.t.api.get(REGISTER),
        await rawJson(REGISTER, '{"email":'),
        await app.t.api.post(REGISTER, {}),
        await app.t.api.get(BUSINESS_INFO),
      ];
      const docs = await fetch(`${app.t.url}/docs`);
      const ids = [...responses.map((r) => r.headers.get('x-request-id')), docs.headers.get('x-request-id')];
      for (const id of ids) assert.match(String(id), REQUEST_ID);
      assert.equal(new Set(ids).size, ids.length, 'request ids are unique');
    });

    it("echoes a client's own sane X-Request-Id and replaces an unsafe one", async () => {
      for (const id of ['client-req-123', 'trace:4bf92f3577b34da6.a3ce929d0e0e4736_01', 'x'.repeat(128)]) {
        const response = await app.t.api.get('/healthz', { headers: { 'x-request-id': id } });
        assert.equal(response.headers.get('x-request-id'), id);
        const error = await app.t.api.get(`${API_PREFIX}/nowhere`, { headers: { 'x-request-id': id } });
        assert.equal(error.headers.get('x-request-id'), id);
      }
      for (const id of ['has spaces in it', 'x'.repeat(129), '<script>alert(1)</script>', 'a/b', 'a"b', '']) {
        const response = await app.t.api.get('/healthz', { headers: { 'x-request-id': id } });
        const echoed = response.headers.get('x-request-id');
        assert.notEqual(echoed, id, `unsafe id ${JSON.stringify(id)} was echoed`);
        assert.match(String(echoed), REQUEST_ID);
      }
    });

    it('answers an unknown route with 404 NOT_FOUND in the envelope', async () => {
      for (const path of [
        `${API_PREFIX}/no-such-route`,
        '/no-such-route',
        `${API_PREFIX}/client/onboarding/registerx`,
        `${REGISTER}/extra`,
        '/baas/api/v2/client/onboarding/register',
      ]) {
        const response = await rawRequest(`${app.t.url}${path}`, { localAddress: '127.0.0.1' });
        assertCleanError(response, 404, 'NOT_FOUND');
      }
      const post = await app.t.api.post(`${API_PREFIX}/no-such-route`, { a: 1 });
      assertCleanError(post, 404, 'NOT_FOUND');
    });

    it('answers a URL with broken percent-encoding with the error envelope, request id and security headers', async () => {
      for (const path of [`${API_PREFIX}/%E0%A4%A`, '/%', `${API_PREFIX}/client/onboarding/%zz`]) {
        const response = await rawRequest(`${app.t.url}${path}`, { localAddress: '127.0.0.1' });
        const code = response.status === 404 ? 'NOT_FOUND' : 'MALFORMED_REQUEST';
        assert.ok([400, 404].includes(response.status), `${path}: ${response.status}`);
        assertCleanError(response, response.status, code);
        assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      }
    });

    it('answers an oversized header block or an unparseable request with the error envelope and a request id', async () => {
      const port = Number(new URL(app.t.url).port);
      const oversized = await rawExchange(
        port,
        `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      );
      assert.match(oversized.statusLine, /^HTTP\/1\.1 4\d\d /, oversized.statusLine);
      assert.match(oversized.headers, /^x-request-id: /im, oversized.headers);
      const big = JSON.parse(oversized.body) as Record<string, unknown>;
      assert.equal(big['status'], 'error', oversized.body);
      assert.ok(
        ['PAYLOAD_TOO_LARGE', 'MALFORMED_REQUEST'].includes(String(big['error_code'])),
        oversized.body,
      );

      const garbage = await rawExchange(port, 'GARBAGE\r\n\r\n');
      assert.match(garbage.statusLine, /^HTTP\/1\.1 400 /, garbage.statusLine);
      assert.match(garbage.headers, /^x-request-id: /im, garbage.headers);
      const body = JSON.parse(garbage.body) as Record<string, unknown>;
      assert.equal(body['status'], 'error', garbage.body);
      assert.equal(body['error_code'], 'MALFORMED_REQUEST', garbage.body);
    });

    it('answers a wrong method on a known path with 405 METHOD_NOT_ALLOWED and an Allow header', async () => {
      const cases: Array<[string, string, string]> = [
        ['GET', REGISTER, 'POST'],
        ['PUT', REGISTER, 'POST'],
        ['DELETE', LOGIN, 'POST'],
        ['GET', `${REGISTER}/`, 'POST'],
        ['DELETE', BUSINESS_INFO, 'GET'],
        ['POST', '/healthz', 'GET'],
      ];
      for (const [method, path, allowed] of cases) {
        const response = await app.t.api.request(method, path);
        assertCleanError(response, 405, 'METHOD_NOT_ALLOWED');
        const allow = String(response.headers.get('allow'))
          .split(',')
          .map((m) => m.trim());
        assert.ok(allow.includes(allowed), `${method} ${path}: Allow ${allow}`);
        assert.ok(!allow.includes(method), `${method} ${path}: Allow ${allow}`);
      }
    });

    it('answers malformed JSON with 400 MALFORMED_REQUEST', async () => {
      for (const body of [
        '{"email":',
        '{bad json}',
        "{'email': 'a@b.co'}",
        '{"a":1}}',
        'undefined',
        '\u0000',
      ]) {
        const response = await rawJson(REGISTER, body);
        assertCleanError(response, 400, 'MALFORMED_REQUEST');
      }
    });

    it('answers a JSON body over 100 KiB with 413 PAYLOAD_TOO_LARGE, with or without Content-Length', async () => {
      const big = JSON.stringify(registration({ business_name: 'x'.repeat(101 * 1024) }));
      assertCleanError(await rawJson(REGISTER, big), 413, 'PAYLOAD_TOO_LARGE');
      const chunks = Array.from({ length: 26 }, (_, i) =>
        i === 0 ? '{"business_name":"' : 'x'.repeat(4096),
      );
      chunks.push('"}');
      assertCleanError(
        await rawRequest(`${app.t.url}${REGISTER}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: chunks,
        }),
        413,
        'PAYLOAD_TOO_LARGE',
      );

      // Just under the limit the body is read and validated instead.
      const under = JSON.stringify(registration({ business_name: 'x'.repeat(99 * 1024) }));
      const response = await rawJson(REGISTER, under);
      assertError(response, 422, 'VALIDATION_FAILED');
      assert.ok(response.body.errors?.['business_name']);
    });

    it('answers text/plain, form and multipart bodies to a JSON endpoint with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
      const json = JSON.stringify(registration());
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        const response = await app.t.api.request('POST', REGISTER, {
          body: json,
          headers: { 'content-type': contentType },
        });
        assertCleanError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
      }
      const form = new FormData();
      for (const [key, value] of Object.entries(registration())) form.append(key, String(value));
      const multipart = await app.t.api.request('POST', REGISTER, { body: form });
      assertCleanError(multipart, 415, 'UNSUPPORTED_MEDIA_TYPE');
      const rows = await app.t.db.selectFrom('partners').select('id').execute();
      assert.equal(rows.length, 0, 'nothing was registered');
    });

    it('accepts application/json with a charset parameter', async () => {
      const response = await app.t.api.request('POST', REGISTER, {
        body: '{}',
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      assertError(response, 422, 'VALIDATION_FAILED');
    });

    it('answers a JSON array, string, number, boolean or null body with 422 VALIDATION_FAILED', async () => {
      for (const body of ['[]', JSON.stringify([registration()]), '"hello"', '42', 'true', 'null']) {
        const response = await rawJson(REGISTER, body);
        assertCleanError(response, 422, 'VALIDATION_FAILED');
      }
    });

    it('does not let __proto__ or constructor.prototype members fill required fields', async () => {
      const fields = JSON.stringify(registration({ email: uniqueEmail('proto') }));
      for (const body of [
        `{"__proto__": ${fields}}`,
        `{"constructor": {"prototype": ${fields}}}`,
        `{"__proto__": {"__proto__": ${fields}}}`,
      ]) {
        const response = await rawJson(REGISTER, body);
        assert.ok(response.status >= 400 && response.status < 500, `${body}: ${response.status}`);
        assertCleanError(response, response.status, String(response.body.error_code));
      }
      const rows = await app.t.db.selectFrom('partners').select('id').execute();
      assert.equal(rows.length, 0, 'nothing was registered from prototype members');
    });

    it('treats a __proto__ member next to real fields as harmless: no pollution, no 5xx', async () => {
      const fields = registration({ email: uniqueEmail('proto') });
      const body = `{"__proto__": {"polluted": "yes", "verified_at": 1, "onboarding_status": "active"}, ${JSON.stringify(fields).slice(1)}`;
      const response = await rawJson(REGISTER, body);
      assert.ok(response.status < 500, response.text);
      assert.equal(({} as Record<string, unknown>)['polluted'], undefined, 'Object.prototype was polluted');
      if (response.status === 201) {
        const row = await app.t.db
          .selectFrom('partners')
          .selectAll()
          .where('email', '=', fields.email)
          .executeTakeFirstOrThrow();
        assert.equal(row.verified_at, null);
        assert.equal(row.onboarding_status, 'in_progress');
      }
      const polluted = await rawJson(
        LOGIN,
        '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}',
      );
      assert.ok(polluted.status >= 400 && polluted.status < 500, polluted.text);
      assert.equal(({} as Record<string, unknown>)['polluted'], undefined, 'Object.prototype was polluted');
    });

    it('sends security headers on successes and errors', async () => {
      const responses = [
        await app.t.api.get('/healthz'),
        await app.t.api.get(`${API_PREFIX}/no-such-route`),
        await app.t.api.get(REGISTER),
        await app.t.api.post(REGISTER, {}),
        await app.t.api.get(BUSINESS_INFO),
        await rawJson(REGISTER, '{'),
      ];
      for (const response of responses) {
        assert.equal(response.headers.get('x-content-type-options'), 'nosniff', response.text);
        assert.match(String(response.headers.get('x-frame-options')), /^(DENY|SAMEORIGIN)$/i);
        assert.match(String(response.headers.get('cache-control')), /no-store/);
      }
    });

    it('answers /healthz and /readyz with 200 in the envelope', async () => {
      for (const path of ['/healthz', '/readyz']) {
        const response = await app.t.api.get(path);
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.status, 'success');
        assert.equal(typeof response.body.message, 'string');
      }
      // The probes live at the root, not under the API prefix.
      assertCleanError(await app.t.api.get(`${API_PREFIX}/healthz`), 404, 'NOT_FOUND');
    });
  });
}
