import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { DIALECTS, useApp } from '../support/app.js';
import { createAccount, newPartner } from '../support/partners.js';
import { DELIVERIES, ROTATE_SECRET, WEBHOOK } from '../support/paths.js';
import { FAST_WEBHOOKS, startReceiver } from '../support/webhooks.js';

for (const dialect of DIALECTS) {
  describe(`webhooks journey [${dialect.name}]`, { skip: dialect.skip }, () => {
    const app = useApp(dialect.name, { env: FAST_WEBHOOKS });

    it('delivers signed events, retries a failing receiver with the same id, and signs with both secrets after rotation', async (test) => {
      const { t, sink } = app;
      const receiver = await startReceiver(test);
      const partner = await newPartner({ t, sink }, 'signed-in');
      const set = await t.api.put(WEBHOOK, { url: receiver.url }, { token: partner.token });
      assert.equal(set.status, 201, set.text);
      assert.match(set.body.data.secret, /^whsec_[A-Za-z0-9+/=]{40,}$/);
      receiver.secret = set.body.data.secret;

      let failures = 2;
      receiver.respond = () => (failures-- > 0 ? 500 : 200);
      const created = await createAccount(t, partner.token, {
        first_name: 'Ada',
        last_name: 'Obi',
        email: 'ada@example.com',
      });
      await receiver.waitFor((deliveries) => deliveries.length >= 3);
      const ids = new Set(receiver.received.map((delivery) => delivery.id));
      assert.equal(ids.size, 1, 'retries reuse the webhook-id');
      assert.ok(
        receiver.received.every((delivery) => delivery.verified !== undefined),
        'every delivery verifies',
      );
      const payload = receiver.received[2]!.verified as { type: string; data: { account_number: string } };
      assert.equal(payload.type, 'virtual_account.created');
      assert.equal(payload.data.account_number, created.account_number);

      // The worker records an attempt before sending it, and its outcome once the receiver has
      // answered: wait for the third outcome.
      const deliveries = () => t.api.get(DELIVERIES, { token: partner.token });
      const outcomes = (items: Array<{ status: string }>) =>
        items.filter((item) => item.status !== 'in_flight').length;
      let log = await deliveries();
      for (let waited = 0; outcomes(log.body.data.items) < 3 && waited < 5000; waited += 20) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        log = await deliveries();
      }
      assert.equal(log.status, 200);
      assert.deepEqual(
        log.body.data.items.map((item: { status: string; status_code: number }) => [
          item.status,
          item.status_code,
        ]),
        [
          ['succeeded', 200],
          ['failed', 500],
          ['failed', 500],
        ],
      );

      const rotated = await t.api.post(ROTATE_SECRET, undefined, {
        token: partner.token,
      });
      assert.equal(rotated.status, 200, rotated.text);
      const before = receiver.received.length;
      await createAccount(t, partner.token, {
        first_name: 'Bola',
        last_name: 'Ade',
        email: 'bola@example.com',
        phone: '+2348090000001',
      });
      await receiver.waitFor((deliveries) => deliveries.length > before);
      const last = receiver.received.at(-1)!;
      assert.equal(last.signature.split(' ').length, 2, 'signed with the new and the previous secret');
      assert.ok(last.verified, 'the old secret still verifies');
      const headers = {
        'webhook-id': last.id,
        'webhook-timestamp': last.timestamp,
        'webhook-signature': last.signature,
      };
      assert.doesNotThrow(
        () => new Webhook(rotated.body.data.secret).verify(last.body, headers),
        'the new secret verifies',
      );
    });
  });
}
