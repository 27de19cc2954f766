import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, beforeEach, describe, it } from 'node:test';
import { pino } from 'pino';
import { createConnectorRail } from '../../src/modules/transfers/connector-rail.js';
import type { BankRail, OutboundTransfer } from '../../src/modules/transfers/rail.js';
import { newWebhookSecret, verify } from '../../src/platform/crypto/standard-webhooks.js';
import { type FakeBank, startFakeBank } from '../support/fake-bank.js';

const SECRET = newWebhookSecret();
const TIMEOUT_MS = 300;

/** Every log line of the rails below, as text: it must never hold the secret. */
const logLines: string[] = [];
const log = pino(
  { level: 'trace' },
  new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  }),
);

let bank: FakeBank;
let rail: BankRail;

before(async () => {
  bank = await startFakeBank({ secret: SECRET });
  rail = createConnectorRail({ url: bank.url, secret: SECRET, timeoutMs: TIMEOUT_MS, log });
});
after(() => bank.close());
beforeEach(() => bank.reset());

let serial = 0;
const nextReference = () => `TRF_${Date.now()}_${++serial}`;

const outbound = (overrides: Partial<OutboundTransfer> = {}): OutboundTransfer => ({
  reference: nextReference(),
  amountKobo: 1_250_000,
  sourceAccountNumber: '0909990001',
  sourceAccountName: 'ACME LTD',
  bankCode: '000013',
  accountNumber: '0123456789',
  accountName: 'ADA OKAFOR',
  nameEnquiryRef: 'NE123',
  narration: 'Invoice 118',
  ...overrides,
});

/** Elapsed milliseconds of `work`. */
async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

describe('connector rail: name enquiry', () => {
  it('00 with a name → found, trimmed, with the bank reference; body and signature as agreed', async () => {
    bank.script('0123456789', { nameEnquiry: { accountName: '  ADA OKAFOR ', nameEnquiryRef: 'NE-77' } });
    const answer = await rail.nameEnquiry('000013', '0123456789');
    assert.deepEqual(answer, { outcome: 'found', accountName: 'ADA OKAFOR', bankRef: 'NE-77' });
    assert.equal(bank.requests.length, 1);
    const request = bank.requests[0]!;
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/name-enquiry');
    assert.equal(request.signatureError, undefined);
    assert.deepEqual(request.body, { bank_code: '000013', account_number: '0123456789' });
    assert.match(String(request.headers['webhook-id']), /^msg_[0-9a-f]+$/);
    assert.match(String(request.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/);
    assert.equal(request.headers['content-type'], 'application/json');
  });

  it('00 without a name reference → bankRef null', async () => {
    bank.script('0123456789', { nameEnquiry: { nameEnquiryRef: null } });
    const answer = await rail.nameEnquiry('000013', '0123456789');
    assert.deepEqual(answer, { outcome: 'found', accountName: 'FAKE CUSTOMER 6789', bankRef: null });
  });

  for (const code of ['25', '07']) {
    it(`${code} → not_found`, async () => {
      bank.script('0123456789', { nameEnquiry: { responseCode: code } });
      assert.deepEqual(await rail.nameEnquiry('000013', '0123456789'), {
        outcome: 'not_found',
        responseCode: code,
      });
    });
  }

  for (const code of ['91', '96']) {
    it(`${code} → unavailable`, async () => {
      bank.script('0123456789', { nameEnquiry: { responseCode: code } });
      const answer = await rail.nameEnquiry('000013', '0123456789');
      assert.equal(answer.outcome, 'unavailable');
      assert.equal(answer.outcome === 'unavailable' && answer.responseCode, code);
    });
  }

  it('00 without an account name, or another code → unavailable with the code', async () => {
    bank.script('0123456789', {
      nameEnquiry: [{ accountName: null }, { accountName: '   ' }, { responseCode: '12' }],
    });
    for (const code of ['00', '00', '12']) {
      const answer = await rail.nameEnquiry('000013', '0123456789');
      assert.equal(answer.outcome, 'unavailable');
      if (answer.outcome !== 'unavailable') return;
      assert.equal(answer.responseCode, code);
      assert.match(answer.reason, new RegExp(code));
    }
  });

  it('a bank slower than the timeout → unavailable, "no answer within 300 ms", without waiting for it', async () => {
    bank.script('0123456789', { nameEnquiry: { delayMs: 2000 } });
    const { value, ms } = await timed(() => rail.nameEnquiry('000013', '0123456789'));
    assert.deepEqual(value, {
      outcome: 'unavailable',
      responseCode: null,
      reason: 'no answer within 300 ms',
    });
    assert.ok(ms < 1500, `took ${ms} ms`);
  });

  it('a dropped connection → unavailable, "connection dropped"', async () => {
    bank.script('0123456789', { nameEnquiry: { drop: true } });
    assert.deepEqual(await rail.nameEnquiry('000013', '0123456789'), {
      outcome: 'unavailable',
      responseCode: null,
      reason: 'connection dropped',
    });
  });

  it('a 502 → unavailable, "HTTP 502" (even carrying a response code)', async () => {
    bank.script('0123456789', {
      nameEnquiry: { status: 502, json: { response_code: '00', account_name: 'X' } },
    });
    assert.deepEqual(await rail.nameEnquiry('000013', '0123456789'), {
      outcome: 'unavailable',
      responseCode: null,
      reason: 'HTTP 502',
    });
  });

  it('not JSON, a JSON array, a missing or odd response_code → unavailable', async () => {
    bank.script('0123456789', {
      nameEnquiry: [
        { body: 'not json' },
        { json: [{ response_code: '00' }] },
        { json: { account_name: 'ADA' } },
        { json: { response_code: 0 } },
        { json: { response_code: 'x'.repeat(500) } },
      ],
    });
    const reasons: string[] = [];
    for (let index = 0; index < 5; index++) {
      const answer = await rail.nameEnquiry('000013', '0123456789');
      assert.equal(answer.outcome, 'unavailable');
      if (answer.outcome === 'unavailable') {
        assert.equal(answer.responseCode, null);
        reasons.push(answer.reason);
      }
    }
    assert.match(reasons[0]!, /not JSON/);
    for (const reason of reasons.slice(1)) assert.match(reason, /no valid response_code/);
  });

  it('a body larger than 64 KiB → unavailable (reading stops)', async () => {
    bank.script('0123456789', {
      nameEnquiry: { json: { response_code: '00', account_name: 'A'.repeat(70_000) } },
    });
    const answer = await rail.nameEnquiry('000013', '0123456789');
    assert.equal(answer.outcome, 'unavailable');
    assert.match(answer.outcome === 'unavailable' ? answer.reason : '', /larger than 65536 bytes/);
  });

  it('a sequence: 91 first, then 00', async () => {
    bank.script('0123456789', { nameEnquiry: [{ responseCode: '91' }, {}] });
    assert.equal((await rail.nameEnquiry('000013', '0123456789')).outcome, 'unavailable');
    assert.equal((await rail.nameEnquiry('000013', '0123456789')).outcome, 'found');
    assert.equal((await rail.nameEnquiry('000013', '0123456789')).outcome, 'found');
  });

  it('the wrong secret → the fake refuses it (401, counted) → unavailable, logged as an error', async () => {
    const lines: string[] = [];
    const wrong = createConnectorRail({
      url: bank.url,
      secret: newWebhookSecret(),
      timeoutMs: TIMEOUT_MS,
      log: pino(
        { level: 'trace' },
        new Writable({
          write(chunk, _encoding, done) {
            lines.push(String(chunk));
            done();
          },
        }),
      ),
    });
    assert.deepEqual(await wrong.nameEnquiry('000013', '0123456789'), {
      outcome: 'unavailable',
      responseCode: null,
      reason: 'HTTP 401',
    });
    assert.equal(bank.signatureFailures, 1);
    assert.match(bank.requests[0]!.signatureError ?? '', /signature/);
    const logged = lines.map((line) => JSON.parse(line) as { level: number; status?: number });
    assert.ok(logged.some((line) => line.level === 50 && line.status === 401));
  });

  it('a connector nobody listens on → unavailable, "connection refused"', async () => {
    const closed = await startFakeBank({ secret: SECRET });
    const url = closed.url;
    await closed.close();
    const nowhere = createConnectorRail({ url, secret: SECRET, timeoutMs: TIMEOUT_MS, log });
    assert.deepEqual(await nowhere.nameEnquiry('000013', '0123456789'), {
      outcome: 'unavailable',
      responseCode: null,
      reason: 'connection refused',
    });
  });
});

describe('connector rail: transfers', () => {
  it('00 → successful with the session id; the body is the agreed one', async () => {
    const transfer = outbound();
    const answer = await rail.send(transfer);
    const held = bank.transfers.get(transfer.reference);
    assert.ok(held);
    assert.match(held.session_id ?? '', /^[0-9]{30}$/);
    assert.deepEqual(answer, { outcome: 'successful', sessionId: held.session_id, responseCode: '00' });
    const request = bank.requests[0]!;
    assert.equal(request.path, '/transfers');
    assert.equal(request.signatureError, undefined);
    assert.deepEqual(request.body, {
      reference: transfer.reference,
      amount_kobo: 1_250_000,
      source_account_number: '0909990001',
      source_account_name: 'ACME LTD',
      bank_code: '000013',
      account_number: '0123456789',
      account_name: 'ADA OKAFOR',
      name_enquiry_ref: 'NE123',
      narration: 'Invoice 118',
    });
  });

  it('a null name_enquiry_ref is sent as null', async () => {
    await rail.send(outbound({ nameEnquiryRef: null }));
    assert.equal((bank.requests[0]!.body as { name_enquiry_ref: unknown }).name_enquiry_ref, null);
  });

  for (const code of ['09', '97', '91', '96']) {
    it(`${code} → unknown`, async () => {
      bank.script('0123456789', { transfer: { responseCode: code } });
      const answer = await rail.send(outbound());
      assert.equal(answer.outcome, 'unknown');
      assert.equal(answer.responseCode, code);
    });
  }

  it('05 → failed with 05 in the reason', async () => {
    bank.script('0123456789', { transfer: { responseCode: '05' } });
    const answer = await rail.send(outbound());
    assert.equal(answer.outcome, 'failed');
    assert.equal(answer.responseCode, '05');
    assert.match(answer.outcome === 'failed' ? answer.reason : '', /05/);
  });

  it('25 → failed (beneficiary not found)', async () => {
    bank.script('0123456789', { transfer: { responseCode: '25' } });
    const answer = await rail.send(outbound());
    assert.equal(answer.outcome, 'failed');
    assert.equal(answer.responseCode, '25');
  });

  const noAnswers: Array<[string, object, RegExp]> = [
    ['a timeout', { delayMs: 2000 }, /^no answer within 300 ms$/],
    ['a dropped connection', { drop: true }, /^connection dropped$/],
    ['a 500', { status: 500 }, /^HTTP 500$/],
    ['a 502', { status: 502 }, /^HTTP 502$/],
    ['a 503', { status: 503, body: '<html>busy</html>' }, /^HTTP 503$/],
    ['a 200 not JSON', { body: 'not json' }, /not JSON/],
    ['a 400 without a response code', { status: 400, json: { error: 'bad' } }, /^HTTP 400$/],
  ];
  for (const [what, reply, reason] of noAnswers) {
    it(`${what} → unknown, no response code`, async () => {
      bank.script('0123456789', { transfer: reply });
      const { value: answer, ms } = await timed(() => rail.send(outbound()));
      assert.equal(answer.outcome, 'unknown');
      assert.equal(answer.responseCode, null);
      assert.match(answer.outcome === 'unknown' ? answer.reason : '', reason);
      assert.ok(ms < 1500, `took ${ms} ms`);
    });
  }

  it('a 4xx carrying a response code is the bank’s word', async () => {
    bank.script('0123456789', { transfer: { status: 400, json: { response_code: '13' } } });
    const answer = await rail.send(outbound());
    assert.equal(answer.outcome, 'failed');
    assert.equal(answer.responseCode, '13');
  });

  it('a session id that is not up to 64 letters or digits is dropped', async () => {
    bank.script('0123456789', {
      transfer: [{ sessionId: '12345-678' }, { sessionId: '9'.repeat(65) }, { sessionId: 'ABC123' }],
    });
    assert.deepEqual(await rail.send(outbound()), {
      outcome: 'successful',
      sessionId: null,
      responseCode: '00',
    });
    assert.deepEqual(await rail.send(outbound()), {
      outcome: 'successful',
      sessionId: null,
      responseCode: '00',
    });
    assert.deepEqual(await rail.send(outbound()), {
      outcome: 'successful',
      sessionId: 'ABC123',
      responseCode: '00',
    });
  });

  it('the same reference twice → two POSTs seen, one transfer, the same answer', async () => {
    const transfer = outbound();
    const first = await rail.send(transfer);
    const second = await rail.send(transfer);
    assert.equal(bank.posts(transfer.reference), 2);
    assert.equal(bank.transfers.size, 1);
    assert.deepEqual(second, first);
    assert.equal(first.outcome, 'successful');
  });

  it('pending (09), then the status query answers 00 → successful with the session id', async () => {
    bank.script('0123456789', {
      transfer: { responseCode: '09' },
      query: [{ responseCode: '09' }, { responseCode: '00' }],
    });
    const transfer = outbound();
    assert.equal((await rail.send(transfer)).outcome, 'unknown');
    const still = await rail.query(transfer.reference);
    assert.equal(still.outcome, 'unknown');
    assert.equal(still.responseCode, '09');
    const done = await rail.query(transfer.reference);
    const held = bank.transfers.get(transfer.reference)!;
    assert.equal(held.status, 'successful');
    assert.deepEqual(done, { outcome: 'successful', sessionId: held.session_id, responseCode: '00' });
    const query = bank.requests.at(-1)!;
    assert.equal(query.method, 'GET');
    assert.equal(query.signatureError, undefined);
    assert.equal(query.raw, '');
  });

  it('a POST answer lost on the way (taken, dropped) → unknown; the query then finds it', async () => {
    bank.script('0123456789', { transfer: { drop: true } });
    const transfer = outbound();
    assert.equal((await rail.send(transfer)).outcome, 'unknown');
    const answer = await rail.query(transfer.reference);
    assert.equal(answer.outcome, 'successful');
    assert.equal(bank.posts(transfer.reference), 1);
  });

  it('the query of a reference the bank never took → 25 → failed', async () => {
    bank.script('0123456789', { transfer: { drop: true, accept: false } });
    const transfer = outbound();
    assert.equal((await rail.send(transfer)).outcome, 'unknown');
    const answer = await rail.query(transfer.reference);
    assert.equal(answer.outcome, 'failed');
    assert.equal(answer.responseCode, '25');
  });

  it('the query times out → unknown', async () => {
    const transfer = outbound();
    await rail.send(transfer);
    bank.scriptAll({ query: { delayMs: 2000 } });
    assert.deepEqual(await rail.query(transfer.reference), {
      outcome: 'unknown',
      responseCode: null,
      reason: 'no answer within 300 ms',
    });
  });

  it('a reference needing encoding is encoded in the GET path', async () => {
    const reference = `ref/with space?&#%é_${serial++}`;
    await rail.send(outbound({ reference }));
    const answer = await rail.query(reference);
    assert.equal(answer.outcome, 'successful');
    const query = bank.requests.at(-1)!;
    assert.equal(query.path, `/transfers/${encodeURIComponent(reference)}`);
    assert.match(query.path, /^\/transfers\/ref%2Fwith%20space%3F%26%23%25%C3%A9_\d+$/);
  });

  it('a base URL with a trailing slash works the same', async () => {
    const slashed = createConnectorRail({ url: `${bank.url}/`, secret: SECRET, timeoutMs: TIMEOUT_MS, log });
    const transfer = outbound();
    assert.equal((await slashed.send(transfer)).outcome, 'successful');
    assert.equal((await slashed.query(transfer.reference)).outcome, 'successful');
    assert.deepEqual(
      bank.requests.map((request) => request.path),
      ['/transfers', `/transfers/${transfer.reference}`],
    );
  });

  it('every call is validly signed, with its own webhook-id', async () => {
    const transfer = outbound();
    await rail.nameEnquiry('000013', '0123456789');
    await rail.send(transfer);
    await rail.send(transfer);
    await rail.query(transfer.reference);
    assert.equal(bank.requests.length, 4);
    assert.ok(bank.requests.every((request) => request.signatureError === undefined));
    assert.equal(bank.signatureFailures, 0);
    assert.equal(new Set(bank.requests.map((request) => request.headers['webhook-id'])).size, 4);
  });
});

describe('connector rail: logs', () => {
  it('never hold the secret, its key or a signature; they name path, status and response code', async () => {
    const transfer = outbound();
    bank.script('0123456789', { nameEnquiry: [{}, { drop: true }, { status: 502 }, { body: 'not json' }] });
    for (let index = 0; index < 4; index++) await rail.nameEnquiry('000013', '0123456789');
    await rail.send(transfer);
    await rail.query(transfer.reference);
    const text = logLines.join('');
    assert.ok(logLines.length > 0);
    assert.ok(!text.includes(SECRET));
    assert.ok(!text.includes(SECRET.slice('whsec_'.length)));
    assert.ok(!text.includes('v1,'));
    assert.ok(!text.includes('FAKE CUSTOMER'), 'a response body was logged');
    const answered = logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line['path'] === '/transfers' && line['responseCode'] === '00');
    assert.ok(answered);
    assert.equal(answered['status'], 200);
    assert.equal(typeof answered['latencyMs'], 'number');
  });
});

describe('fake bank: pushUpdate', () => {
  it('POSTs the update, signed with the secret, to {api}/baas/api/v1/bank/transfer-updates', async (t) => {
    const received: Array<{ path: string; body: string; signatureError: string | undefined }> = [];
    const api = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const raw = Buffer.concat(chunks);
        received.push({
          path: request.url ?? '',
          body: raw.toString('utf8'),
          signatureError: verify(SECRET, request.headers, raw, Math.floor(Date.now() / 1000)),
        });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ ok: true }));
      });
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => api.close(() => resolve())));
    const transfer = outbound();
    await rail.send(transfer);
    const { port } = api.address() as AddressInfo;
    const answer = await bank.pushUpdate(`http://127.0.0.1:${port}/`, {
      reference: transfer.reference,
      status: 'reversed',
      reason: 'returned by the beneficiary bank',
    });
    assert.deepEqual(answer, { status: 200, body: { ok: true } });
    assert.equal(received.length, 1);
    assert.equal(received[0]!.path, '/baas/api/v1/bank/transfer-updates');
    assert.equal(received[0]!.signatureError, undefined);
    assert.deepEqual(JSON.parse(received[0]!.body), {
      reference: transfer.reference,
      status: 'reversed',
      reason: 'returned by the beneficiary bank',
    });
    assert.equal(bank.transfers.get(transfer.reference)!.status, 'reversed');
  });
});
