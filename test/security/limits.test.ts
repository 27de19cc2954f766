import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { newId } from '../../src/platform/crypto/tokens.js';
import { adminHeaders } from '../support/admin.js';
import {
  createTestDatabase,
  startApp,
  TEST_ADMIN_KEY,
  TEST_ENCRYPTION_KEY,
  type TestDatabase,
} from '../support/app.js';
import { assertError, envelopeOf, until } from '../support/assertions.js';
import { notification, notify } from '../support/bank.js';
import {
  form,
  memberBody,
  PDF_BYTES,
  PNG_BYTES,
  registration,
  representativeFields,
} from '../support/factories.js';
import type { Api } from '../support/http.js';
import { listAll } from '../support/http.js';
import { apiDocuments } from '../support/openapi.js';
import { createAccount, createApiKey, newPartner, type PartnerAt } from '../support/partners.js';
import {
  ADMIN_CREDIT_NOTIFICATIONS,
  ADMIN_PARTNERS,
  ADMIN_PREFIX,
  ADMIN_TRANSFERS,
  API_KEYS,
  API_PREFIX,
  AUDIT_EVENTS,
  accountUrl,
  creditUrl,
  DELIVERIES,
  DOCUMENTS,
  EVENTS,
  LOGIN,
  memberUrl,
  REGISTER,
  REPRESENTATIVE,
  TEAM,
  TRANSFERS,
  transactionsUrl,
  VIRTUAL_ACCOUNTS,
  WEBHOOK,
} from '../support/paths.js';
import { SmtpSink } from '../support/smtp-sink.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * SECURITY.md "Resource exhaustion" and docs/partner-guide.md ("Responses and errors", "Pagination"):
 * slow clients are cut off, bodies, uploads, URLs, headers and pages are bounded, and every refusal is
 * a 4xx, never a 5xx.
 * The HTTP layer is the same on both dialects, so this file runs on SQLite.
 */

const MiB = 1024 * 1024;
const KiB = 1024;

interface Exchange {
  /** Everything the server wrote before it closed the connection. */
  received: string;
  /** Milliseconds from the first byte sent until the server closed the connection. */
  closedAfterMs: number;
}

/** Writes `chunks` on a raw socket, then stalls; resolves when the server closes (or after `capMs`). */
function stallingClient(port: number, chunks: string[], capMs: number): Promise<Exchange | 'still open'> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    const cap = setTimeout(() => {
      socket.destroy();
      resolve('still open');
    }, capMs);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(cap);
      resolve({ received, closedAfterMs: Date.now() - started });
    });
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
    });
  });
}

/** Sends a complete raw request and reads until the server closes or `Connection: close` is honoured. */
async function rawExchange(
  port: number,
  request: string | Buffer,
): Promise<{ status: number; body: string }> {
  const socket = net.connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
  socket.write(request);
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      socket.destroy();
      resolve();
    }, 5000);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  const text = Buffer.concat(chunks).toString('latin1');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  return { status, body: text.slice(text.indexOf('\r\n\r\n') + 4) };
}

const statusOf = (received: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
const bodyOf = (received: string) => received.slice(received.indexOf('\r\n\r\n') + 4);

/** Whatever the server wrote before hanging up, if anything, is a 4xx (a timeout is the client's fault). */
function assertClientError(received: string): void {
  if (received === '') return;
  const status = statusOf(received);
  assert.ok(status >= 400 && status < 500, `expected a 4xx before the close, got: ${received.slice(0, 200)}`);
}

function baseEnv(database: TestDatabase, extra: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_IP_PER_MINUTE: '0',
    DATA_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    ADMIN_API_KEY: TEST_ADMIN_KEY,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    ...database.env,
    ...extra,
  };
}

describe('resource limits: slow clients (buildApp server, timeouts scaled down)', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let port: number;
  const HEADERS_TIMEOUT = 600;
  const REQUEST_TIMEOUT = 1200;

  before(async () => {
    database = await createTestDatabase('sqlite');
    app = await buildApp(loadConfig(baseEnv(database)));
    // Node checks these timeouts every connectionsCheckingInterval (read once, at listen).
    const server = app.server as typeof app.server & { connectionsCheckingInterval: number };
    server.connectionsCheckingInterval = 50;
    server.headersTimeout = HEADERS_TIMEOUT;
    server.requestTimeout = REQUEST_TIMEOUT;
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as net.AddressInfo).port;
  });
  after(async () => {
    await app?.close();
    await database?.drop();
  });

  it('configures the production values on the server buildApp returns', async () => {
    const production = await buildApp(loadConfig(baseEnv(database)));
    try {
      assert.equal(production.server.headersTimeout, 10_000);
      assert.equal(production.server.requestTimeout, 30_000);
      assert.equal(production.server.keepAliveTimeout, 5_000);
      assert.equal(production.server.timeout, 60_000, 'connectionTimeout (idle socket)');
      assert.equal(production.initialConfig.bodyLimit, 100 * KiB);
    } finally {
      await production.close();
    }
  });

  it('disconnects a client that sends its headers slowly once the header timeout passes', async () => {
    const result = await stallingClient(
      port,
      ['GET /healthz HTTP/1.1\r\n', 'Host: 127.0.0.1\r\n', 'X-Slow: a'],
      HEADERS_TIMEOUT * 5,
    );
    assert.notEqual(result, 'still open', 'the server kept a stalled header section open');
    if (result === 'still open') return;
    assert.ok(result.closedAfterMs >= HEADERS_TIMEOUT - 50, `closed too early: ${result.closedAfterMs} ms`);
    assert.ok(result.closedAfterMs <= HEADERS_TIMEOUT + 1000, `closed after ${result.closedAfterMs} ms`);
    assertClientError(result.received);
  });

  it('disconnects a client whose body trickles in beyond the request timeout', async () => {
    const result = await stallingClient(
      port,
      [
        `POST ${LOGIN} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
          'Content-Type: application/json\r\nContent-Length: 200\r\n\r\n',
        '{"email":"slow@example.com",',
      ],
      REQUEST_TIMEOUT * 5,
    );
    assert.notEqual(result, 'still open', 'the server kept a stalled body open');
    if (result === 'still open') return;
    assert.ok(result.closedAfterMs >= REQUEST_TIMEOUT - 50, `closed too early: ${result.closedAfterMs} ms`);
    assert.ok(result.closedAfterMs <= REQUEST_TIMEOUT + 1000, `closed after ${result.closedAfterMs} ms`);
    assertClientError(result.received);
  });

  it('answers a timed-out request with the error envelope', async () => {
    const result = await stallingClient(port, ['GET /healthz HTTP/1.1\r\nHost: x\r\n'], HEADERS_TIMEOUT * 5);
    assert.notEqual(result, 'still open');
    if (result === 'still open') return;
    assertClientError(result.received);
    const envelope = envelopeOf(bodyOf(result.received));
    assert.equal(envelope.status, 'error');
    assert.equal(typeof envelope.error_code, 'string');
  });
});

describe('resource limits: bodies, uploads, URLs, headers and pages (production settings)', () => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let receiver: WebhookReceiver;
  let instance: Awaited<ReturnType<typeof startApp>>;
  let api: Api;
  let port: number;
  let partner: PartnerAt<'signed-in'>;
  let key: string;
  /** A slow-header client started with the suite, checked at its end against the real 10 s timeout. */
  let realSlowClient: Promise<Exchange | 'still open'>;

  before(async () => {
    database = await createTestDatabase('sqlite');
    sink = await new SmtpSink().start();
    receiver = await new WebhookReceiver().start();
    instance = await startApp(database, {
      env: { SMTP_URL: sink.url, LOG_LEVEL: 'silent', WEBHOOK_POLL_MS: '10', WEBHOOK_TIMEOUT_MS: '2000' },
    });
    api = instance.api;
    port = (instance.app.server.address() as net.AddressInfo).port;
    realSlowClient = stallingClient(port, ['GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '], 12_500);
    partner = await newPartner({ t: instance, sink }, 'signed-in');
    key = (await createApiKey({ api }, partner.token, 'sandbox')).key;
    const representative = await api.request('POST', REPRESENTATIVE, {
      token: partner.token,
      body: form(representativeFields(), {
        id_file: { bytes: PNG_BYTES, name: 'id.png', type: 'image/png' },
      }),
    });
    assert.equal(representative.status, 201, representative.text);
  });
  after(async () => {
    await realSlowClient;
    await instance?.stop();
    await receiver?.stop();
    await sink?.stop();
    await database?.drop();
  });

  /** A documents upload with the given text fields and files. */
  const upload = (fields: Record<string, string>, files: Array<{ name: string; bytes: Buffer }>) => {
    const body = form(fields);
    for (const file of files) body.append(file.name, new Blob([file.bytes]), `${file.name}.pdf`);
    return api.request('POST', DOCUMENTS, { token: partner.token, body });
  };

  it('accepts a file of exactly 5 MiB and refuses 5 MiB + 1 byte with 413 PAYLOAD_TOO_LARGE', async () => {
    const exact = Buffer.concat([PDF_BYTES, Buffer.alloc(5 * MiB - PDF_BYTES.length, 0x20)]);
    const accepted = await upload({ document_type: 'other' }, [{ name: 'file', bytes: exact }]);
    assert.equal(accepted.status, 201, accepted.text);
    const over = Buffer.concat([exact, Buffer.from(' ')]);
    assertError(
      await upload({ document_type: 'other' }, [{ name: 'file', bytes: over }]),
      413,
      'PAYLOAD_TOO_LARGE',
    );
  });

  it('buffers one file per file field: an extra file under an unknown name is ignored, a second one for the field is 422', async () => {
    const ignored = await upload({ document_type: 'other' }, [
      { name: 'file', bytes: PDF_BYTES },
      { name: 'extra', bytes: Buffer.alloc(4 * MiB, 0x20) },
    ]);
    assert.equal(ignored.status, 201, ignored.text);
    const twice = await upload({ document_type: 'other' }, [
      { name: 'file', bytes: PDF_BYTES },
      { name: 'file', bytes: PDF_BYTES },
    ]);
    assertError(twice, 422, 'VALIDATION_FAILED');
    assert.deepEqual(twice.body.errors?.['file'], ['must be a single file'], twice.text);
  });

  it('refuses a file sent for a text field with 422 naming the field', async () => {
    const response = await upload({}, [
      { name: 'document_type', bytes: PDF_BYTES },
      { name: 'file', bytes: PDF_BYTES },
    ]);
    assertError(response, 422, 'VALIDATION_FAILED');
    assert.ok(
      response.body.errors?.['document_type']?.includes('must be a text field, not a file'),
      response.text,
    );
  });

  it('refuses more than 32 parts with 413 PAYLOAD_TOO_LARGE, files included', async () => {
    const files = Array.from({ length: 33 }, (_, index) => ({ name: `extra_${index}`, bytes: PDF_BYTES }));
    assertError(await upload({}, files), 413, 'PAYLOAD_TOO_LARGE');
  });

  /** document_type plus `count - 1` unknown fields, then the file (the usual order of a form). */
  const manyFields = (count: number) => {
    const result: Record<string, string> = { document_type: 'other' };
    for (let i = 1; i < count; i++) result[`extra_${i}`] = 'x';
    return result;
  };

  it('accepts 30 text fields and refuses 40 with 413 PAYLOAD_TOO_LARGE', async () => {
    const thirty = await upload(manyFields(30), [{ name: 'file', bytes: PDF_BYTES }]);
    assert.equal(thirty.status, 201, `30 fields (unknown ones ignored): ${thirty.text}`);
    assertError(await upload(manyFields(40), [{ name: 'file', bytes: PDF_BYTES }]), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('refuses 31 text fields followed by the file with 413 PAYLOAD_TOO_LARGE', async () => {
    assertError(await upload(manyFields(31), [{ name: 'file', bytes: PDF_BYTES }]), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('refuses a text field over 8 KiB with 422 VALIDATION_FAILED naming the field (8 KiB exactly is fine)', async () => {
    // `notes` is not a field of the endpoint: unknown fields are ignored, so only the size limit can name it.
    const exact = await upload({ document_type: 'other', notes: 'n'.repeat(8 * KiB) }, [
      { name: 'file', bytes: PDF_BYTES },
    ]);
    assert.equal(exact.status, 201, exact.text);
    const over = await upload({ document_type: 'other', notes: 'n'.repeat(8 * KiB + 1) }, [
      { name: 'file', bytes: PDF_BYTES },
    ]);
    assertError(over, 422, 'VALIDATION_FAILED');
    assert.ok(over.body.errors?.['notes']?.length, over.text);
  });

  it('takes a JSON body of exactly 100 KiB and refuses 100 KiB + 1 byte with 413 PAYLOAD_TOO_LARGE', async () => {
    const body = (size: number) => {
      const skeleton = JSON.stringify({ ...registration(), padding: '' });
      return `${skeleton.slice(0, -2)}${'p'.repeat(size - skeleton.length)}"}`;
    };
    const exact = body(100 * KiB);
    assert.equal(Buffer.byteLength(exact), 100 * KiB);
    const accepted = await api.request('POST', REGISTER, {
      body: exact,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(
      accepted.status,
      201,
      `the unknown padding field is ignored: ${accepted.text.slice(0, 300)}`,
    );
    const over = body(100 * KiB + 1);
    assertError(
      await api.request('POST', REGISTER, {
        body: over,
        headers: { 'content-type': 'application/json' },
      }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
  });

  it('answers very long URLs with a 4xx, never a 5xx', async () => {
    const longId = await api.get(accountUrl('9'.repeat(8 * KiB)), { token: key });
    assert.ok(longId.status >= 400 && longId.status < 500, `8 KiB path id: ${longId.status}`);
    const longQuery = await api.get(`${VIRTUAL_ACCOUNTS}?cursor=${'c'.repeat(8 * KiB)}`, { token: key });
    assertError(longQuery, 422, 'VALIDATION_FAILED');
    const longRoute = await api.get(`${VIRTUAL_ACCOUNTS}-${'x'.repeat(8 * KiB)}`, { token: key });
    assertError(longRoute, 404, 'NOT_FOUND');
    const huge = await rawExchange(
      port,
      `GET ${API_PREFIX}/${'a'.repeat(20 * KiB)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    assert.ok(huge.status >= 400 && huge.status < 500, `20 KiB URL: ${huge.status}`);
  });

  it('answers an undecodable path id with 404 NOT_FOUND in the error envelope', async () => {
    assertError(await api.get(`${TEAM}/%E0%A4%A`, { token: key }), 404, 'NOT_FOUND');
    assertError(await api.get(`${VIRTUAL_ACCOUNTS}/%zz`, { token: key }), 404, 'NOT_FOUND');
  });

  it('answers a path id longer than the router allows with 404 NOT_FOUND, like any invalid id', async () => {
    assertError(await api.get(accountUrl('9'.repeat(300)), { token: key }), 404, 'NOT_FOUND');
    assertError(await api.get(memberUrl('a'.repeat(300)), { token: key }), 404, 'NOT_FOUND');
  });

  it('answers many or oversized headers with a 4xx, never a 5xx', async () => {
    const headers = (count: number) =>
      Array.from({ length: count }, (_, i) => `X-Filler-${i}: value-${i}\r\n`).join('');
    const many = await rawExchange(
      port,
      `GET ${VIRTUAL_ACCOUNTS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n${headers(100)}Connection: close\r\n\r\n`,
    );
    assert.equal(many.status, 200, `100 headers are fine: ${many.body}`);
    const tooMany = await rawExchange(port, `GET /healthz HTTP/1.1\r\nHost: x\r\n${headers(3000)}\r\n`);
    assert.ok(tooMany.status >= 400 && tooMany.status < 500, `3000 headers: ${tooMany.status}`);
    const oneHuge = await rawExchange(
      port,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(32 * KiB)}\r\n\r\n`,
    );
    assert.ok(oneHuge.status >= 400 && oneHuge.status < 500, `32 KiB header: ${oneHuge.status}`);
  });

  it('answers an oversized URL or header section with 413 PAYLOAD_TOO_LARGE in the error envelope', async () => {
    for (const request of [
      `GET ${API_PREFIX}/${'a'.repeat(20 * KiB)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(32 * KiB)}\r\n\r\n`,
    ]) {
      const response = await rawExchange(port, request);
      const envelope = envelopeOf(response.body);
      assert.equal(envelope.error_code, 'PAYLOAD_TOO_LARGE', response.body);
      assert.equal(response.status, 413, 'the status of PAYLOAD_TOO_LARGE in the error table');
    }
  });

  it('refuses ?limit=101 and ?limit=0 with 422 and returns at most 100 items for ?limit=100 on every list', async () => {
    // More than 100 rows behind every list.
    const endpoint = await api.put(WEBHOOK, { url: receiver.url }, { token: key });
    assert.equal(endpoint.status, 201, endpoint.text);
    const inBatches = async (count: number, make: (i: number) => Promise<unknown>) => {
      for (let i = 0; i < count; i += 20) {
        await Promise.all(Array.from({ length: Math.min(20, count - i) }, (_, j) => make(i + j)));
      }
    };
    await inBatches(101, () => createAccount({ api }, key));
    const account = (await api.get(`${VIRTUAL_ACCOUNTS}?limit=1`, { token: key })).body.data.items[0];
    await inBatches(101, async () => {
      const credited = await api.post(creditUrl(account.account_number), { amount: 1 }, { token: key });
      assert.equal(credited.status, 201, credited.text);
    });
    // Book transfers (instant, no fee) of a kobo each to another of the partner's accounts.
    const other = (await api.get(`${VIRTUAL_ACCOUNTS}?limit=2`, { token: key })).body.data.items[1];
    await inBatches(101, async (i) => {
      const sent = await api.post(
        TRANSFERS,
        {
          source_account_number: account.account_number,
          amount: '0.01',
          bank_code: account.bank_code,
          account_number: other.account_number,
          reference: `limits-${i}`,
        },
        { token: key },
      );
      assert.equal(sent.status, 202, sent.text);
    });
    // The bank's notifications for a number that is no account: refused, and kept for operators.
    await inBatches(101, async () => {
      const refused = await notify(api, notification('0000000000'));
      assert.equal(refused.status, 404, refused.text);
    });
    await inBatches(101, async () => {
      const added = await api.post(TEAM, memberBody(), { token: key });
      assert.equal(added.status, 201, added.text);
    });
    await inBatches(100, async () => {
      await createApiKey({ api }, partner.token, 'sandbox');
    });
    await inBatches(101, async () => {
      const registered = await api.post(REGISTER, registration());
      assert.equal(registered.status, 201, registered.text);
    });
    await inBatches(101, async (i) => {
      const invited = await api.post(
        `${ADMIN_PREFIX}invitations`,
        { email: `limits-invitee-${i}@operator.example`, role: 'reviewer' },
        { headers: adminHeaders },
      );
      assert.equal(invited.status, 201, invited.text);
    });
    // Operators are made by hand: a real set-up costs an argon2id hash and a TOTP step each.
    const handle = database.open();
    try {
      const now = Date.now();
      await handle.db
        .insertInto('operators')
        .values(
          Array.from({ length: 101 }, (_, i) => ({
            id: newId(),
            email: `limits-operator-${i}@operator.example`,
            name: `Operator ${i}`,
            role: 'reviewer' as const,
            status: 'active' as const,
            password_hash: 'not-a-hash',
            totp_secret: null,
            totp_last_step: null,
            last_sign_in_at: null,
            created_at: now,
            updated_at: now,
          })),
        )
        .execute();
      // Proposals too (four eyes): settled ones, so the one-pending-per-decision index allows 101.
      const partner = await handle.db.selectFrom('partners').select('id').executeTakeFirstOrThrow();
      await handle.db
        .insertInto('decision_proposals')
        .values(
          Array.from({ length: 101 }, () => ({
            id: newId(),
            partner_id: partner.id,
            action: 'suspend' as const,
            reason: 'limits',
            internal_note: null,
            status: 'withdrawn' as const,
            proposed_by_type: 'api_key' as const,
            proposed_by_id: null,
            settled_by_type: 'api_key' as const,
            settled_by_id: null,
            settled_at: now,
            decline_reason: null,
            created_at: now,
          })),
        )
        .execute();
    } finally {
      await handle.close();
    }
    await until(
      'over 100 delivery attempts',
      async () => (await api.get(`${DELIVERIES}?limit=100`, { token: key })).body.data.next_cursor,
      30_000,
      100,
    );
    // Every event delivered before the lists are read: none still in flight under a loaded machine.
    const events = database.open();
    try {
      await until(
        'every event delivered',
        async () =>
          (
            await events.db
              .selectFrom('outbox_events')
              .select((eb) => eb.fn.countAll<number>().as('pending'))
              .where('status', '=', 'pending')
              .executeTakeFirstOrThrow()
          ).pending === 0 || undefined,
        60_000,
        100,
      );
    } finally {
      await events.close();
    }

    const lists: Record<string, { path: string; headers: Record<string, string> }> = {
      [`GET ${API_KEYS}`]: {
        path: API_KEYS,
        headers: { authorization: `Bearer ${partner.token}` },
      },
      [`GET ${TEAM}`]: { path: TEAM, headers: { authorization: `Bearer ${key}` } },
      [`GET ${VIRTUAL_ACCOUNTS}`]: { path: VIRTUAL_ACCOUNTS, headers: { authorization: `Bearer ${key}` } },
      [`GET ${VIRTUAL_ACCOUNTS}/{account_number}/transactions`]: {
        path: transactionsUrl(account.account_number),
        headers: { authorization: `Bearer ${key}` },
      },
      [`GET ${DELIVERIES}`]: { path: DELIVERIES, headers: { authorization: `Bearer ${key}` } },
      [`GET ${ADMIN_PREFIX}invitations`]: { path: `${ADMIN_PREFIX}invitations`, headers: adminHeaders },
      [`GET ${ADMIN_PREFIX}operators`]: { path: `${ADMIN_PREFIX}operators`, headers: adminHeaders },
      [`GET ${ADMIN_PREFIX}proposals`]: { path: `${ADMIN_PREFIX}proposals`, headers: adminHeaders },
      [`GET ${EVENTS}`]: { path: EVENTS, headers: { authorization: `Bearer ${key}` } },
      [`GET ${ADMIN_PARTNERS}`]: { path: ADMIN_PARTNERS, headers: adminHeaders },
      [`GET ${ADMIN_PREFIX}audit-events`]: { path: AUDIT_EVENTS, headers: adminHeaders },
      [`GET ${ADMIN_CREDIT_NOTIFICATIONS}`]: { path: ADMIN_CREDIT_NOTIFICATIONS, headers: adminHeaders },
      [`GET ${TRANSFERS}`]: { path: TRANSFERS, headers: { authorization: `Bearer ${key}` } },
      [`GET ${ADMIN_TRANSFERS}`]: { path: ADMIN_TRANSFERS, headers: adminHeaders },
    };
    const doc = (await apiDocuments({ api })).all;
    const paginated = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) =>
          (operation.parameters ?? []).some(
            (parameter: { in: string; name: string }) =>
              parameter.in === 'query' && parameter.name === 'limit',
          ),
        )
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    assert.deepEqual(
      paginated.filter((operation) => !(operation in lists)),
      [],
      'paginated lists without a case',
    );
    assert.equal(paginated.length, Object.keys(lists).length);

    for (const [operation, list] of Object.entries(lists)) {
      for (const bad of ['101', '0', '-1', '1.5', 'abc']) {
        const refused = await api.get(`${list.path}?limit=${bad}`, { headers: list.headers });
        assertError(refused, 422, 'VALIDATION_FAILED', { what: `${operation} ?limit=${bad}` });
        assert.ok(refused.body.errors?.['limit']?.length, refused.text);
      }
      const page = await api.get(`${list.path}?limit=100`, { headers: list.headers });
      assert.equal(page.status, 200, `${operation}: ${page.text}`);
      if (page.body.data.items.length !== 100) {
        const handle = database.open();
        const attempts = await handle.db
          .selectFrom('webhook_attempts')
          .select((eb) => [eb.fn.countAll().as('n'), 'partner_id', 'environment'])
          .groupBy(['partner_id', 'environment'])
          .execute();
        const events = await handle.db
          .selectFrom('outbox_events')
          .select((eb) => [eb.fn.countAll().as('n'), 'status'])
          .groupBy('status')
          .execute();
        await handle.close();
        assert.fail(
          `${operation}: ${page.body.data.items.length} items; attempts ${JSON.stringify(attempts)}; events ${JSON.stringify(events)}; next ${page.body.data.next_cursor}`,
        );
      }
      assert.equal(typeof page.body.data.next_cursor, 'string', `${operation}: more rows behind the page`);
      const defaulted = await api.get(list.path, { headers: list.headers });
      assert.equal(defaulted.body.data.items.length, 20, `${operation}: default page size`);
    }
    assert.ok((await listAll({ api }, VIRTUAL_ACCOUNTS, key)).length >= 101);
  });

  it('drops a slow-header client within about the real 10 s header timeout', async () => {
    const result = await realSlowClient;
    assert.notEqual(result, 'still open', 'still connected 12.5 s after sending a partial header section');
    if (result === 'still open') return;
    assert.ok(result.closedAfterMs >= 9_500, `closed after ${result.closedAfterMs} ms`);
    assertClientError(result.received);
  });
});
