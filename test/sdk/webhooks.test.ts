import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type BaasClient,
  type VirtualAccount,
  type WebhookEvent,
  type WebhookEventOf,
  WebhookVerificationError,
  type WebhookVerificationReason,
  webhooks,
} from '../../sdk/src/index.js';
import { newWebhookSecret } from '../../src/platform/crypto/standard-webhooks.js';
import { DIALECTS, useApp } from '../support/app.js';
import { customerBody } from '../support/factories.js';
import { newPartner } from '../support/partners.js';
import type { ReceivedWebhook } from '../support/webhook-receiver.js';
import { FAST_WEBHOOKS, startReceiver } from '../support/webhooks.js';
import { sdkClient } from './helpers.js';

type CustomerInput = Parameters<BaasClient['virtualAccounts']['create']>[0];

/** The headers of a delivery as a Node server hands them over. */
const headersOf = (delivery: ReceivedWebhook, signature = delivery.signature) => ({
  'webhook-id': delivery.id,
  'webhook-timestamp': delivery.timestamp,
  'webhook-signature': signature,
  'content-type': 'application/json',
});

async function refused(promise: Promise<unknown>, reason: WebhookVerificationReason): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof WebhookVerificationError, String(error));
    assert.equal(error.reason, reason, error.message);
    return true;
  });
}

/** What a partner's handler does with a verified event: the compiler narrows `data` by `type`. */
function describeEvent(event: WebhookEvent): string {
  switch (event.type) {
    case 'virtual_account.created':
      return `created ${event.data.account_number}`;
    case 'virtual_account.credited':
      return `credited ${event.data.transaction.amount} to ${event.data.account.account_number}`;
    case 'virtual_account.status_changed':
      return `status of ${event.data.account_number}`;
    case 'onboarding.status_changed':
      return 'onboarding';
    case 'document.reviewed':
      return 'document';
    case 'transfer.successful':
    case 'transfer.failed':
    case 'transfer.reversed':
      return `${event.type} ${event.data.reference}: ${event.data.status}`;
    case 'webhook.test':
      return `test: ${event.data.message}`;
  }
}

for (const dialect of DIALECTS) {
  describe(`SDK webhooks.verify on real deliveries [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name, { env: FAST_WEBHOOKS });
    /** A fresh partner whose endpoint is a receiver of the test's own; its SDK client and secret. */
    async function subscribed(test: Parameters<typeof startReceiver>[0]) {
      const receiver = await startReceiver(test);
      const made = await newPartner(suite, 'sandbox');
      const { client } = sdkClient(suite.t.url, made.sandboxKey);
      const { secret } = await client.webhookEndpoint.set(receiver.url);
      receiver.secret = secret;
      return { receiver, client, secret };
    }

    it('returns the typed event of real virtual_account.created and .credited deliveries, as the standardwebhooks library reads them', async (test) => {
      const { receiver, client, secret } = await subscribed(test);
      const account = await client.virtualAccounts.create(customerBody() as CustomerInput);
      const credit = await client.virtualAccounts.simulateCredit(account.account_number, { amount: 700.25 });
      await receiver.waitFor((deliveries) => deliveries.length >= 2);

      const events: WebhookEvent[] = [];
      for (const delivery of receiver.received) {
        const event = await webhooks.verify(delivery.body, headersOf(delivery), secret);
        assert.deepEqual(event, delivery.verified, 'the same payload the reference library verified');
        events.push(event);
        // A Fetch Headers object works too (e.g. in a Request handler).
        assert.deepEqual(
          await webhooks.verify(delivery.body, new Headers(headersOf(delivery)), secret),
          event,
        );
        // And the raw bytes.
        assert.deepEqual(
          await webhooks.verify(new TextEncoder().encode(delivery.body), headersOf(delivery), [secret]),
          event,
        );
      }
      const created = events.find(
        (event): event is WebhookEventOf<'virtual_account.created'> =>
          event.type === 'virtual_account.created',
      );
      const credited = events.find(
        (event): event is WebhookEventOf<'virtual_account.credited'> =>
          event.type === 'virtual_account.credited',
      );
      assert.ok(created && credited);
      const createdAccount: VirtualAccount = created.data;
      assert.deepEqual(createdAccount, account);
      assert.deepEqual(credited.data.transaction, credit.transaction);
      assert.equal(credited.data.account.balance, 700.25);
      assert.deepEqual(events.map(describeEvent).sort(), [
        `created ${account.account_number}`,
        `credited 700.25 to ${account.account_number}`,
      ]);
      // The client exposes the same function.
      const [first] = receiver.received;
      assert.deepEqual(await client.webhooks.verify(first!.body, headersOf(first!), secret), events[0]);
    });

    it('refuses a tampered body or id, a stale or future timestamp, a missing header, a wrong secret', async (test) => {
      const { receiver, client, secret } = await subscribed(test);
      await client.virtualAccounts.create(customerBody() as CustomerInput);
      await receiver.waitFor((deliveries) => deliveries.length >= 1);
      const delivery = receiver.received[0]!;
      const sentAt = Number(delivery.timestamp) * 1000;
      await webhooks.verify(delivery.body, headersOf(delivery), secret, { now: sentAt });

      await refused(
        webhooks.verify(delivery.body.replace('"balance":0', '"balance":1000'), headersOf(delivery), secret),
        'no_matching_signature',
      );
      await refused(
        webhooks.verify(delivery.body, { ...headersOf(delivery), 'webhook-id': 'msg_other' }, secret),
        'no_matching_signature',
      );
      await refused(
        webhooks.verify(delivery.body, headersOf(delivery), newWebhookSecret()),
        'no_matching_signature',
      );
      await refused(
        webhooks.verify(delivery.body, headersOf(delivery, delivery.signature.replace('v1,', 'v2,')), secret),
        'no_matching_signature',
      );
      await refused(
        webhooks.verify(delivery.body, headersOf(delivery), secret, { now: sentAt + 301_000 }),
        'timestamp_too_old',
      );
      await refused(
        webhooks.verify(delivery.body, headersOf(delivery), secret, { now: new Date(sentAt - 301_000) }),
        'timestamp_too_new',
      );
      await webhooks.verify(delivery.body, headersOf(delivery), secret, { now: sentAt + 299_000 });
      await refused(
        webhooks.verify(delivery.body, headersOf(delivery), secret, {
          now: sentAt + 11_000,
          toleranceSeconds: 10,
        }),
        'timestamp_too_old',
      );
      // A replay under another (fresher) timestamp does not match the signature.
      await refused(
        webhooks.verify(
          delivery.body,
          { ...headersOf(delivery), 'webhook-timestamp': String(Number(delivery.timestamp) + 1) },
          secret,
        ),
        'no_matching_signature',
      );
      const { 'webhook-signature': _signature, ...unsigned } = headersOf(delivery);
      await refused(webhooks.verify(delivery.body, unsigned, secret), 'missing_header');
      await refused(
        webhooks.verify(delivery.body, { ...headersOf(delivery), 'webhook-timestamp': 'yesterday' }, secret),
        'invalid_timestamp',
      );
    });

    it("after a rotation the server signs with the new and the old secret: each verifies alone, and so does the receiving side's [old, new] array", async (test) => {
      const { receiver, client, secret: old } = await subscribed(test);
      const { secret: current } = await client.webhookEndpoint.rotateSecret();
      assert.ok(current, 'the first answer shows the new secret');
      assert.notEqual(current, old);
      receiver.secret = current;
      const account = await client.virtualAccounts.create(customerBody() as CustomerInput);
      await receiver.waitFor((deliveries) => deliveries.length >= 1);
      const delivery = receiver.received[0]!;
      const signatures = delivery.signature.split(' ');
      assert.equal(signatures.length, 2, 'two signatures during the 24 hours after a rotation');

      for (const secrets of [current, old, [old, current], [current, old]]) {
        const event = await webhooks.verify(delivery.body, headersOf(delivery), secrets);
        assert.equal(event.type, 'virtual_account.created');
        assert.equal(event.type === 'virtual_account.created' && event.data.id, account.id);
      }
      // Each single signature (as a sender that signs with one secret sends it) verifies with the array.
      for (const signature of signatures) {
        await webhooks.verify(delivery.body, headersOf(delivery, signature), [old, current]);
      }
      // The old secret alone does not verify what only the new one signed, and vice versa.
      await refused(
        webhooks.verify(delivery.body, headersOf(delivery, signatures[0]), old),
        'no_matching_signature',
      );
      await refused(
        webhooks.verify(delivery.body, headersOf(delivery, signatures[1]), current),
        'no_matching_signature',
      );
      await refused(
        webhooks.verify(delivery.body, headersOf(delivery), [newWebhookSecret(), newWebhookSecret()]),
        'no_matching_signature',
      );
    });

    it('matches the Standard Webhooks reference vector (a signed body that is not an event is invalid_payload)', async () => {
      const vector = {
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
        timestamp: 1614265330,
        body: '{"test": 2432232314}',
        signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
      };
      const headers = {
        'Webhook-Id': vector.id,
        'Webhook-Timestamp': String(vector.timestamp),
        'Webhook-Signature': `v1,bm90IGl0 ${vector.signature}`,
      };
      const now = vector.timestamp * 1000;
      await refused(webhooks.verify(vector.body, headers, vector.secret, { now }), 'invalid_payload');
      await refused(
        webhooks.verify(vector.body, headers, newWebhookSecret(), { now }),
        'no_matching_signature',
      );
    });
  });
}
