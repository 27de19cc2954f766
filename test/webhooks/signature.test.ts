import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { eventBody } from '../../src/modules/webhooks/delivery.js';
import type { EventRow } from '../../src/modules/webhooks/webhooks.repository.js';
import { newWebhookSecret, sign } from '../../src/platform/crypto/standard-webhooks.js';

/** The vector of the Standard Webhooks reference library's own test suite. */
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const BODIES = [
  '{"type":"virtual_account.created","timestamp":"2025-01-01T00:00:00.000Z","data":{"id":"x"}}',
  '{}',
  '{"name":"Ọlá Àdìó","note":"naira ₦ and emoji 🙂, quotes \\" and newline \\n"}',
  `{"blob":"${'a'.repeat(50_000)}"}`,
  '',
];

const headersOf = (id: string, timestamp: number, signature: string) => ({
  'webhook-id': id,
  'webhook-timestamp': String(timestamp),
  'webhook-signature': signature,
});

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('webhook signatures (Standard Webhooks)', () => {
  it('reproduces the reference test vector, with and without the whsec_ prefix', () => {
    assert.equal(sign([VECTOR.secret], VECTOR.id, VECTOR.timestamp, VECTOR.body), VECTOR.signature);
    assert.equal(
      sign([VECTOR.secret.slice('whsec_'.length)], VECTOR.id, VECTOR.timestamp, VECTOR.body),
      VECTOR.signature,
    );
    const library = new Webhook(VECTOR.secret).sign(
      VECTOR.id,
      new Date(VECTOR.timestamp * 1000),
      VECTOR.body,
    );
    assert.equal(library, VECTOR.signature);
  });

  it('agrees with the library signer for several bodies, ids and secrets', () => {
    for (const body of BODIES) {
      const secret = newWebhookSecret();
      const id = `msg_${Math.random().toString(36).slice(2)}`;
      const timestamp = nowSeconds();
      assert.equal(
        sign([secret], id, timestamp, body),
        new Webhook(secret).sign(id, new Date(timestamp * 1000), body),
      );
    }
  });

  it('verifies with Webhook.verify for several bodies', () => {
    for (const body of BODIES.filter((candidate) => candidate !== '')) {
      const secret = newWebhookSecret();
      const timestamp = nowSeconds();
      const signature = sign([secret], 'msg_abc', timestamp, body);
      assert.match(signature, /^v1,[A-Za-z0-9+/]{43}=$/);
      const payload = new Webhook(secret).verify(body, headersOf('msg_abc', timestamp, signature));
      assert.deepEqual(payload, JSON.parse(body));
    }
  });

  it('fails verification when the body, id or timestamp is tampered with, or the secret is wrong', () => {
    const secret = newWebhookSecret();
    const body = '{"type":"virtual_account.credited","data":{"amount":1500}}';
    const timestamp = nowSeconds();
    const signature = sign([secret], 'msg_original', timestamp, body);
    const webhook = new Webhook(secret);
    assert.doesNotThrow(() => webhook.verify(body, headersOf('msg_original', timestamp, signature)));

    const tampered: Array<[string, () => unknown]> = [
      [
        'body',
        () => webhook.verify(body.replace('1500', '15000'), headersOf('msg_original', timestamp, signature)),
      ],
      ['id', () => webhook.verify(body, headersOf('msg_other', timestamp, signature))],
      ['timestamp', () => webhook.verify(body, headersOf('msg_original', timestamp - 1, signature))],
      [
        'secret',
        () => new Webhook(newWebhookSecret()).verify(body, headersOf('msg_original', timestamp, signature)),
      ],
      [
        'signature version',
        () => webhook.verify(body, headersOf('msg_original', timestamp, signature.replace('v1,', 'v2,'))),
      ],
    ];
    for (const [what, attempt] of tampered) {
      assert.throws(attempt, WebhookVerificationError, `a tampered ${what} must not verify`);
    }
  });

  it('signs with every secret after a rotation: two space-separated signatures, each verifying with its own', () => {
    const previous = newWebhookSecret();
    const current = newWebhookSecret();
    const body = '{"type":"document.reviewed","data":{}}';
    const timestamp = nowSeconds();
    const signature = sign([current, previous], 'msg_rotated', timestamp, body);
    const parts = signature.split(' ');
    assert.equal(parts.length, 2);
    assert.equal(parts[0], sign([current], 'msg_rotated', timestamp, body));
    assert.equal(parts[1], sign([previous], 'msg_rotated', timestamp, body));
    const headers = headersOf('msg_rotated', timestamp, signature);
    assert.doesNotThrow(() => new Webhook(current).verify(body, headers));
    assert.doesNotThrow(() => new Webhook(previous).verify(body, headers));
    assert.throws(() => new Webhook(newWebhookSecret()).verify(body, headers), WebhookVerificationError);
  });

  it('issues secrets as whsec_ + base64 of at least 24 random bytes, never the same twice', () => {
    const secrets = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const secret = newWebhookSecret();
      assert.match(secret, /^whsec_[A-Za-z0-9+/]+={0,2}$/);
      const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
      assert.ok(key.length >= 24, `${key.length} bytes`);
      assert.equal(key.toString('base64'), secret.slice('whsec_'.length), 'canonical base64');
      assert.doesNotThrow(() => new Webhook(secret));
      secrets.add(secret);
    }
    assert.equal(secrets.size, 50);
  });

  it('builds the body as {type, timestamp, data} with the event time in ISO 8601 and the stored payload verbatim', () => {
    const createdAt = Date.UTC(2025, 0, 2, 3, 4, 5, 678);
    const payload = '{"account_number":"0000014579","balance":0}';
    const event = {
      id: 'msg_x',
      type: 'virtual_account.created',
      created_at: createdAt,
      payload,
    } as EventRow;
    const body = eventBody(event);
    assert.deepEqual(JSON.parse(body), {
      type: 'virtual_account.created',
      timestamp: '2025-01-02T03:04:05.678Z',
      data: JSON.parse(payload),
    });
    assert.ok(body.includes(payload));
  });
});
