import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { checkDestination, DeliveryError, postJson } from '../../src/modules/webhooks/sender.js';
import { addressAllowed, isLinkLocalAddress, isPrivateAddress } from '../../src/modules/webhooks/ssrf.js';
import { DIALECTS, type TestApp, useApp } from '../support/app.js';
import { until } from '../support/assertions.js';
import type { Api } from '../support/http.js';
import { createAccount, newPartner } from '../support/partners.js';
import { DELIVERIES, retryUrl, WEBHOOK } from '../support/paths.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import {
  FAST_WEBHOOKS,
  fakeDns,
  logLinesWith,
  setEndpoint,
  settled,
  startReceiver,
  verifiedPayload,
} from '../support/webhooks.js';

const PRIVATE = [
  '127.0.0.1',
  '127.255.0.9',
  '10.0.0.1',
  '172.16.5.4',
  '192.168.1.1',
  '169.254.169.254',
  '100.64.0.1',
  '0.0.0.0',
  '192.88.99.1',
  '255.255.255.255',
  '[::1]',
  '::1',
  '::',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:169.254.169.254',
  'fd00:ec2::254',
  'fe80::1',
  'fe80::1%eth0',
  'fc00::1',
  'fec0::1',
  '224.0.0.1',
  'ff02::1',
  '2001:db8::1',
  '3fff::1',
  '5f00::1',
  '4000::1',
];

/** IPv6 addresses that carry an IPv4 one: refused by 'public-only' whatever they carry. */
const EMBEDDING = [
  '::7f00:1', // IPv4-compatible 127.0.0.1
  '::127.0.0.1',
  '::808:808', // IPv4-compatible 8.8.8.8
  '::ffff:808:808', // IPv4-mapped 8.8.8.8
  '0:0:0:0:0:ffff:7f00:1',
  '::ffff:0:7f00:1', // IPv4-translated 127.0.0.1
  '::ffff:0:808:808',
  '64:ff9b::7f00:1', // NAT64
  '64:ff9b::8.8.8.8',
  '64:ff9b:1::7f00:1', // local-use NAT64
  '64:ff9b:1:ffff::1',
  '2002:7f00:1::1', // 6to4
  '2002:808:808::1',
  '2001:0:7f00:1::1', // Teredo, server 127.0.0.1
  '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo (RFC 4380's example)
  '2001:2::1', // benchmarking
];
const PUBLIC = [
  '8.8.8.8',
  '1.1.1.1',
  '2606:4700:4700::1111',
  '[2606:4700:4700::1111]',
  '93.184.216.34',
  '2a00:1450:4001:82a::200e',
  '2001:4860:4860::8888',
];

/** Link-local or cloud metadata, directly or inside an IPv6 form: refused by 'no-link-local' too. */
const LINK_LOCAL = [
  '169.254.169.254',
  '169.254.1.1',
  '100.100.100.200',
  'fe80::1',
  'fd00:ec2::254',
  '::ffff:169.254.169.254',
  '::ffff:a9fe:a9fe',
  '::a9fe:a9fe',
  '::ffff:0:a9fe:a9fe',
  '64:ff9b::a9fe:a9fe',
  '64:ff9b::169.254.169.254',
  '64:ff9b:1::a9fe:a9fe',
  '2002:a9fe:a9fe::1',
  '2001:0:a9fe:a9fe::1', // Teredo server
  '2001:0:808:808::5601:5601', // Teredo client: 169.254.169.254 with its bits inverted
  '2001:db8::200:5efe:a9fe:a9fe', // ISATAP interface identifier
];

describe('SSRF guard: addresses', () => {
  it('treats loopback, private, link-local, CGNAT, unspecified and mapped addresses as private', () => {
    for (const address of PRIVATE) assert.equal(isPrivateAddress(address), true, address);
  });

  it('treats public addresses as public', () => {
    for (const address of PUBLIC) assert.equal(isPrivateAddress(address), false, address);
  });

  it('treats every IPv6 form that carries an IPv4 address as private, whatever it carries', () => {
    for (const address of EMBEDDING) assert.equal(isPrivateAddress(address), true, address);
  });

  it('treats link-local and metadata addresses as link-local, also inside IPv6 forms, and nothing else', () => {
    for (const address of LINK_LOCAL) assert.equal(isLinkLocalAddress(address), true, address);
    for (const address of [...PUBLIC, '127.0.0.1', '10.0.0.1', '::1', '::ffff:7f00:1', '64:ff9b::a00:1']) {
      assert.equal(isLinkLocalAddress(address), false, address);
    }
  });

  it('fails closed on anything that is not an IP address', () => {
    for (const value of ['localhost', 'example.com', '', '999.1.1.1']) {
      assert.equal(isPrivateAddress(value), true, value);
      assert.equal(addressAllowed(value, 'public-only'), false, value);
    }
  });

  it("'public-only' allows only public addresses", () => {
    for (const address of [...PRIVATE, ...EMBEDDING, ...LINK_LOCAL]) {
      assert.equal(addressAllowed(address, 'public-only'), false, address);
    }
    for (const address of PUBLIC) assert.equal(addressAllowed(address, 'public-only'), true, address);
  });

  it("'no-link-local' refuses link-local and metadata addresses but allows loopback and private ranges", () => {
    for (const address of LINK_LOCAL) assert.equal(addressAllowed(address, 'no-link-local'), false, address);
    for (const address of [
      '127.0.0.1',
      '::1',
      '10.0.0.1',
      '192.168.1.1',
      '8.8.8.8',
      '::ffff:7f00:1',
      '::ffff:a00:1',
      '2002:a00:1::1',
    ]) {
      assert.equal(addressAllowed(address, 'no-link-local'), true, address);
    }
  });

  it("'any' allows everything", () => {
    for (const address of [...PRIVATE, ...EMBEDDING, ...LINK_LOCAL, ...PUBLIC])
      assert.equal(addressAllowed(address, 'any'), true, address);
  });

  it('checks IP literals and DNS names of a URL before it is stored', async () => {
    const refused = async (url: string, policy: 'public-only' | 'no-link-local') =>
      assert.match(String(await checkDestination(new URL(url), policy)), /not allowed|must resolve/, url);
    await refused('https://127.0.0.1/x', 'public-only');
    await refused('https://[::1]/x', 'public-only');
    await refused('https://[::ffff:127.0.0.1]/x', 'public-only');
    await refused('https://[::ffff:7f00:1]/x', 'public-only');
    await refused('https://[::7f00:1]/x', 'public-only');
    await refused('https://[64:ff9b:1::7f00:1]/x', 'public-only');
    // WHATWG URL parsing turns decimal and hex IPv4 forms into dotted quads before the check.
    await refused('https://2130706433/x', 'public-only');
    await refused('https://0x7f.1/x', 'public-only');
    await refused('https://localhost/x', 'public-only');
    await refused('http://169.254.169.254/x', 'no-link-local');
    await refused('http://[::ffff:a9fe:a9fe]/x', 'no-link-local');
    assert.equal(await checkDestination(new URL('https://8.8.8.8/x'), 'public-only'), undefined);
    assert.equal(await checkDestination(new URL('http://localhost/x'), 'no-link-local'), undefined);
    assert.equal(await checkDestination(new URL('http://[::ffff:7f00:1]/x'), 'no-link-local'), undefined);
  });

  it('tells a partner neither what a refused name resolved to nor whether it resolved at all', async (test) => {
    fakeDns(test, 'db.internal.test', [['10.20.30.40']]);
    fakeDns(test, 'gone.internal.test', [{ code: 'ENOTFOUND' }]);
    const internal = await checkDestination(new URL('https://db.internal.test/x'), 'public-only');
    const missing = await checkDestination(new URL('https://gone.internal.test/x'), 'public-only');
    assert.ok(internal && missing);
    assert.doesNotMatch(internal, /10\.20\.30\.40/);
    assert.equal(
      internal.replace('db.internal.test', 'HOST'),
      missing.replace('gone.internal.test', 'HOST'),
      'the same answer for a private name and a name that does not resolve',
    );
    const localhost = String(await checkDestination(new URL('https://localhost/x'), 'public-only'));
    assert.doesNotMatch(localhost, /127\.0\.0\.1|::1/);
  });
});

describe('SSRF guard: the sender', () => {
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = await new WebhookReceiver().start();
  });
  afterEach(async () => {
    await receiver.stop();
  });
  const send = (url: string, policy: 'public-only' | 'no-link-local' | 'any') =>
    postJson(url, '{}', { 'content-type': 'application/json' }, { timeoutMs: 1000, policy });

  const notAllowed = (detail: RegExp) => (error: Error) => {
    assert.ok(error instanceof DeliveryError, String(error));
    assert.equal(error.reason, 'destination_not_allowed');
    assert.match(error.message, detail);
    return true;
  };

  it("refuses a loopback receiver under 'public-only', by IP literal and by a name resolving to loopback", async () => {
    const port = new URL(receiver.url).port;
    await assert.rejects(send(receiver.url, 'public-only'), notAllowed(/127\.0\.0\.1/));
    await assert.rejects(
      send(`http://localhost:${port}/hooks`, 'public-only'),
      notAllowed(/localhost resolves to a disallowed address/),
    );
    for (const host of ['[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[::7f00:1]', '[::ffff:0:7f00:1]']) {
      await assert.rejects(send(`http://${host}:${port}/hooks`, 'public-only'), notAllowed(/7f00|127/));
    }
    assert.equal(receiver.received.length, 0, 'nothing reached the receiver');
  });

  it("refuses link-local under 'no-link-local' without connecting", async () => {
    await assert.rejects(
      send('http://169.254.169.254/latest/meta-data', 'no-link-local'),
      notAllowed(/169\.254\.169\.254/),
    );
    await assert.rejects(send('http://[fe80::1]/', 'no-link-local'), notAllowed(/fe80::1/));
    await assert.rejects(send('http://[::ffff:a9fe:a9fe]/', 'no-link-local'), notAllowed(/a9fe/));
  });

  it('fails with a reason — connection_failed, timeout — and keeps the socket error as the message', async () => {
    const closed = new WebhookReceiver();
    await closed.start();
    const url = closed.url;
    await closed.stop();
    await assert.rejects(send(url, 'any'), (error: Error) => {
      assert.ok(error instanceof DeliveryError, String(error));
      assert.equal(error.reason, 'connection_failed');
      assert.match(error.message, /ECONNREFUSED/);
      return true;
    });
    receiver.delayMs = 1500;
    await assert.rejects(send(receiver.url, 'any'), (error: Error) => {
      assert.ok(error instanceof DeliveryError, String(error));
      assert.equal(error.reason, 'timeout');
      return true;
    });
  });

  it("delivers to the same loopback receiver under 'no-link-local' and 'any'", async () => {
    const port = new URL(receiver.url).port;
    assert.equal((await send(`http://localhost:${port}/hooks`, 'no-link-local')).statusCode, 200);
    assert.equal((await send(receiver.url, 'any')).statusCode, 200);
    assert.equal(receiver.received.length, 2);
  });

  it('is not fooled by DNS rebinding: the address checked is the address connected to', async (test) => {
    const port = new URL(receiver.url).port;
    const url = `http://rebind.test:${port}/hooks`;
    const lookups = fakeDns(test, 'rebind.test', [['93.184.216.34'], ['127.0.0.1']]);
    assert.equal(await checkDestination(new URL(url), 'public-only'), undefined, 'first answer is public');
    await assert.rejects(
      send(url, 'public-only'),
      notAllowed(/rebind\.test resolves to a disallowed address \(127\.0\.0\.1\)/),
    );
    assert.equal(lookups.length, 2, 'the connection did its own (guarded) lookup');
    assert.equal(receiver.received.length, 0);
  });

  it('refuses a name when any one of its addresses is private', async (test) => {
    const port = new URL(receiver.url).port;
    fakeDns(test, 'mixed.test', [['93.184.216.34', '127.0.0.1']]);
    assert.match(
      String(await checkDestination(new URL(`http://mixed.test:${port}/`), 'public-only')),
      /must resolve/,
    );
    await assert.rejects(send(`http://mixed.test:${port}/hooks`, 'public-only'), notAllowed(/127\.0\.0\.1/));
    assert.equal(receiver.received.length, 0);
  });
});

/** Asserts a 422 VALIDATION_FAILED on `url` for each URL, and that nothing was stored. */
async function assertRefused(t: { api: Api }, token: string, urls: string[]): Promise<void> {
  for (const url of urls) {
    const response = await t.api.put(WEBHOOK, { url }, { token });
    assert.equal(response.status, 422, `${url}: ${response.text}`);
    assert.equal(response.body.error_code, 'VALIDATION_FAILED', url);
    assert.ok(response.body.errors?.['url']?.length, `${url}: ${response.text}`);
  }
  const none = await t.api.get(WEBHOOK, { token });
  assert.equal(none.status, 404, 'nothing was stored');
}

/** The loopback receiver's port under every IPv6 form that carries 127.0.0.1, and IPv4 spellings of it. */
function loopbackForms(scheme: 'http' | 'https', port: string): string[] {
  return [
    `${scheme}://127.0.0.1:${port}/hooks`,
    `${scheme}://localhost:${port}/hooks`,
    `${scheme}://2130706433:${port}/hooks`,
    `${scheme}://0x7f.1:${port}/hooks`,
    `${scheme}://[::1]:${port}/hooks`,
    `${scheme}://[::ffff:127.0.0.1]:${port}/hooks`,
    `${scheme}://[::ffff:7f00:1]:${port}/hooks`,
    `${scheme}://[0:0:0:0:0:ffff:7f00:1]:${port}/hooks`,
    `${scheme}://[::7f00:1]:${port}/hooks`,
    `${scheme}://[::ffff:0:7f00:1]:${port}/hooks`,
    `${scheme}://[64:ff9b::7f00:1]:${port}/hooks`,
    `${scheme}://[64:ff9b:1::7f00:1]:${port}/hooks`,
    `${scheme}://[2002:7f00:1::1]:${port}/hooks`,
    `${scheme}://[2001:0:7f00:1::1]:${port}/hooks`,
  ];
}

const PRIVATE_URLS = (scheme: 'http' | 'https') => [
  `${scheme}://10.0.0.1/hooks`,
  `${scheme}://172.16.5.4/hooks`,
  `${scheme}://192.168.1.1/hooks`,
  `${scheme}://100.64.0.1/hooks`,
  `${scheme}://192.88.99.1/hooks`,
  `${scheme}://169.254.169.254/latest/meta-data`,
  `${scheme}://[::ffff:a9fe:a9fe]/latest/meta-data`,
  `${scheme}://[64:ff9b::8.8.8.8]/hooks`,
  `${scheme}://[fd00:ec2::254]/hooks`,
  `${scheme}://[fe80::1]/hooks`,
  `${scheme}://[fec0::1]/hooks`,
];

/** The delivery log's attempt for virtual_account.created, once recorded, refused before any connection. */
async function refusedAttempt(t: Pick<TestApp, 'api'>, token: string, environment: string) {
  const attempt = await until(`a refused ${environment} attempt`, async () => {
    const log = await t.api.get(DELIVERIES, { token });
    return log.body.data.items.find(
      (item: { event_type: string; status: string }) =>
        item.event_type === 'virtual_account.created' && item.status !== 'in_flight',
    );
  });
  assert.equal(attempt.succeeded, false);
  assert.equal(attempt.status_code, null);
  assert.equal(attempt.latency_ms, 0);
  assert.equal(attempt.error, 'destination_not_allowed');
  return attempt;
}

for (const dialect of DIALECTS) {
  describe(`SSRF guard over HTTP, WEBHOOK_ALLOW_PRIVATE=false [${dialect.name}]`, {
    skip: dialect.skip,
    concurrency: true,
  }, () => {
    const ctx = useApp(dialect.name, { env: { ...FAST_WEBHOOKS, WEBHOOK_ALLOW_PRIVATE: 'false' } });

    it('refuses live URLs on loopback, private, link-local, IPv4-carrying IPv6 forms or names resolving to loopback (422 errors.url)', async (test) => {
      const { t, sink } = ctx;
      const partner = await newPartner({ t, sink }, 'live');
      await settled(t, partner.companyId);
      const receiver = await startReceiver(test);
      const port = new URL(receiver.url).port;
      await assertRefused(t, partner.liveToken, [...loopbackForms('https', port), ...PRIVATE_URLS('https')]);

      // The same partner may use a public address.
      const accepted = await t.api.put(
        WEBHOOK,
        { url: 'https://8.8.8.8/hooks' },
        { token: partner.liveToken },
      );
      assert.equal(accepted.status, 201, accepted.text);
      const removed = await t.api.delete(WEBHOOK, { token: partner.liveToken });
      assert.equal(removed.status, 200, removed.text);
      assert.equal(receiver.received.length, 0);
    });

    it('in sandbox refuses link-local (cloud metadata), also inside IPv6 forms, but accepts and delivers to a loopback receiver', async (test) => {
      const { t, sink } = ctx;
      const partner = await newPartner({ t, sink }, 'signed-in');
      await assertRefused(t, partner.token, [
        'http://169.254.169.254/',
        'http://[fe80::1]/hooks',
        'http://[fd00:ec2::254]/',
        'http://[::ffff:a9fe:a9fe]/latest/meta-data',
        'http://[::a9fe:a9fe]/',
        'http://[::ffff:0:a9fe:a9fe]/',
        'http://[64:ff9b::a9fe:a9fe]/',
        'http://[64:ff9b:1::a9fe:a9fe]/',
        'http://[2002:a9fe:a9fe::1]/',
        'http://100.100.100.200/latest/meta-data',
      ]);
      const receiver = await startReceiver(test);
      const port = new URL(receiver.url).port;
      const set = await setEndpoint(t.api, partner.token, receiver, `http://[::ffff:7f00:1]:${port}/hooks`);
      assert.equal(set.status, 201, set.text);
      const account = await createAccount(t, partner.token);
      await receiver.waitFor((deliveries) => deliveries.length >= 1, 10_000);
      assert.equal(verifiedPayload(receiver.received[0]!).data.account_number, account.account_number);
    });

    it('refuses at delivery time a live name that rebinds to loopback after it was accepted, telling the partner only destination_not_allowed', async (test) => {
      const { t, sink } = ctx;
      const partner = await newPartner({ t, sink }, 'live');
      await settled(t, partner.companyId);
      const receiver = await startReceiver(test);
      const port = new URL(receiver.url).port;
      const lookups = fakeDns(test, 'hooks.rebind.test', [['93.184.216.34'], ['127.0.0.1']]);
      const set = await t.api.put(
        WEBHOOK,
        { url: `https://hooks.rebind.test:${port}/hooks` },
        { token: partner.liveToken },
      );
      assert.equal(set.status, 201, set.text);
      assert.equal(lookups.length, 1);
      await createAccount(t, partner.liveToken);
      const attempt = await refusedAttempt(t, partner.liveToken, 'live');
      assert.equal(receiver.received.length, 0, 'nothing reached the loopback receiver');
      const logged = logLinesWith(t, attempt.event_id).filter((line) => line.includes('127.0.0.1'));
      assert.ok(logged.length > 0, 'the server log keeps the resolved address for the operator');
      assert.equal((await t.api.delete(WEBHOOK, { token: partner.liveToken })).status, 200);
    });
  });

  describe(`SSRF guard over HTTP in production: sandbox is public-only too [${dialect.name}]`, {
    skip: dialect.skip,
    concurrency: true,
  }, () => {
    const ctx = useApp(dialect.name, {
      env: {
        ...FAST_WEBHOOKS,
        NODE_ENV: 'production',
        WEBHOOK_ALLOW_PRIVATE: 'false',
        PUBLIC_URL: 'https://partners.bank.example',
      },
    });

    it('refuses sandbox URLs on loopback, private, link-local and IPv4-carrying IPv6 forms (422 errors.url); accepts a public one', async (test) => {
      const { t, sink } = ctx;
      const partner = await newPartner({ t, sink }, 'signed-in');
      await settled(t, partner.companyId);
      const receiver = await startReceiver(test);
      const port = new URL(receiver.url).port;
      await assertRefused(t, partner.token, [...loopbackForms('http', port), ...PRIVATE_URLS('http')]);
      const accepted = await t.api.put(WEBHOOK, { url: 'http://8.8.8.8/hooks' }, { token: partner.token });
      assert.equal(accepted.status, 201, accepted.text);
      assert.equal((await t.api.delete(WEBHOOK, { token: partner.token })).status, 200);
      assert.equal(receiver.received.length, 0);
    });

    it('refuses at delivery time a sandbox name that rebinds to loopback, automatically and on a manual retry', async (test) => {
      const { t, sink } = ctx;
      const partner = await newPartner({ t, sink }, 'signed-in');
      await settled(t, partner.companyId);
      const receiver = await startReceiver(test);
      const port = new URL(receiver.url).port;
      fakeDns(test, 'sandbox.rebind.test', [['93.184.216.34'], ['127.0.0.1']]);
      const set = await t.api.put(
        WEBHOOK,
        { url: `http://sandbox.rebind.test:${port}/hooks` },
        { token: partner.token },
      );
      assert.equal(set.status, 201, set.text);
      await createAccount(t, partner.token);
      const attempt = await refusedAttempt(t, partner.token, 'sandbox');

      const retried = await t.api.post(retryUrl(attempt.id), undefined, { token: partner.token });
      assert.equal(retried.status, 201, retried.text);
      assert.equal(retried.body.data.succeeded, false);
      assert.equal(retried.body.data.error, 'destination_not_allowed');
      assert.equal(retried.body.data.latency_ms, 0);
      assert.doesNotMatch(retried.text, /127\.0\.0\.1/);
      assert.equal(receiver.received.length, 0, 'nothing reached the loopback receiver');
      assert.equal((await t.api.delete(WEBHOOK, { token: partner.token })).status, 200);
    });
  });
}
