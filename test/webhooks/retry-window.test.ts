import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { DIALECTS, type TestApp, useApp } from '../support/app.js';
import { until } from '../support/assertions.js';
import { createAccount, newPartner, type PartnerAt } from '../support/partners.js';
import { LOGIN, ROTATE_SECRET, retryUrl, WEBHOOK } from '../support/paths.js';
import { attemptsOf, outboxEvents } from '../support/records.js';
import { type ReceivedWebhook, WebhookReceiver } from '../support/webhook-receiver.js';
import {
  allDeliveries,
  FAST_WEBHOOKS,
  setEndpoint,
  startReceiver,
  subscribedPartner,
} from '../support/webhooks.js';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

async function signIn(t: TestApp, partner: PartnerAt<'signed-in'>): Promise<string> {
  const login = await t.api.post(LOGIN, { email: partner.email, password: partner.password });
  assert.equal(login.status, 200, login.text);
  return login.body.data.token;
}

/**
 * Whether one of the delivery's signatures is the library's signature with `secret`. (The app's clock runs
 * ahead of the real time here, which Webhook.verify's timestamp tolerance would reject on its own.)
 */
const signedWith = (secret: string, delivery: ReceivedWebhook): boolean =>
  delivery.signature
    .split(' ')
    .includes(
      new Webhook(secret).sign(delivery.id, new Date(Number(delivery.timestamp) * 1000), delivery.body),
    );

// The dialects' suites are independent (a database each), so they run side by side.
describe('webhook retry window', { concurrency: true }, () => {
  for (const dialect of DIALECTS) {
    describe(`webhook retry window and secret expiry (test clock) [${dialect.name}]`, {
      skip: dialect.skip,
      concurrency: false,
    }, () => {
      // The app's clock is a TestClock the test moves; sessions expire when it does, so tests log in again.
      const ctx = useApp(dialect.name, { env: FAST_WEBHOOKS });

      it('gives up 24 hours after the event was created: status failed, no more attempts; a manual retry still works', async (test) => {
        const { t, sink } = ctx;
        const { clock } = t;
        const { partner, receiver } = await subscribedPartner(test, { t, sink });
        receiver.respond = () => 500;
        await createAccount(t, partner.token);
        const [event] = await outboxEvents(t, partner.companyId);
        await until('two failed attempts', async () => (await attemptsOf(t, event!.id)).length >= 2);
        assert.equal((await outboxEvents(t, partner.companyId))[0]!.status, 'pending', 'still retrying');

        clock.advance(DAY + 60_000);
        const failed = await until('the event to be given up', async () => {
          const [row] = await outboxEvents(t, partner.companyId);
          return row?.status === 'failed' && row;
        });
        assert.equal(failed.last_error, 'http_500');
        assert.equal(failed.delivered_at, null);
        const attempts = await attemptsOf(t, event!.id);
        assert.equal(failed.attempts, attempts.length);
        assert.ok(
          attempts.at(-1)!.created_at > event!.created_at + DAY,
          'the last attempt came after the window',
        );
        const sentForFailed = () => receiver.received.filter((delivery) => delivery.id === event!.id).length;
        const sentBefore = sentForFailed();

        // A newer event of the same partner is delivered: the worker keeps polling, and leaves the failed one alone.
        receiver.respond = (delivery) => (delivery.id === event!.id ? 500 : 200);
        const token = await signIn(t, partner);
        const later = await createAccount(t, token);
        await until('the newer event to be delivered', async () => {
          const rows = await outboxEvents(t, partner.companyId);
          return rows.length === 2 && rows[1]!.status === 'delivered';
        });
        // Sent a day ahead of the real time, so the library's timestamp tolerance rejects it; the body still tells.
        const newer = receiver.received.filter((delivery) => delivery.id !== event!.id);
        assert.deepEqual(
          newer.map((delivery) => JSON.parse(delivery.body).data.account_number),
          [later.account_number],
        );
        assert.equal(sentForFailed(), sentBefore, 'no attempt after giving up');
        assert.equal((await attemptsOf(t, event!.id)).length, attempts.length);
        assert.equal((await outboxEvents(t, partner.companyId))[0]!.status, 'failed');

        receiver.respond = () => 200;
        const manual = await t.api.post(retryUrl(attempts.at(-1)!.id), undefined, { token });
        assert.equal(manual.status, 201, manual.text);
        assert.equal(manual.body.data.succeeded, true);
        assert.equal(manual.body.data.attempt, attempts.length + 1);
        const [delivered] = await outboxEvents(t, partner.companyId);
        assert.equal(delivered!.status, 'delivered', 'a successful manual retry settles a failed event');
        const log = await allDeliveries(t, token, `event_id=${encodeURIComponent(event!.id)}`);
        assert.equal(log.length, attempts.length + 1);
        assert.equal(log[0].trigger, 'manual');
      });

      it('signs with the previous secret too for 24 hours after a rotation, then with the new one only', async (test) => {
        const { t, sink } = ctx;
        const { clock } = t;
        const receiver = await startReceiver(test);
        const partner = await newPartner({ t, sink }, 'signed-in');
        const set = await setEndpoint(t.api, partner.token, receiver);
        const oldSecret: string = set.body.data.secret;
        const rotated = await t.api.post(ROTATE_SECRET, undefined, { token: partner.token });
        assert.equal(rotated.status, 200, rotated.text);
        const newSecret: string = rotated.body.data.secret;

        await createAccount(t, partner.token);
        await receiver.waitFor((deliveries) => deliveries.length >= 1, 10_000);
        const during = receiver.received[0]!;
        assert.equal(during.signature.split(' ').length, 2);
        assert.ok(signedWith(oldSecret, during), 'the previous secret signs');
        assert.ok(signedWith(newSecret, during), 'the new secret signs');

        clock.advance(DAY + 60_000);
        const token = await signIn(t, partner);
        const read = await t.api.get(WEBHOOK, { token });
        assert.equal(read.body.data.previous_secret_expires_at, null, 'the previous secret has expired');
        await createAccount(t, token);
        await receiver.waitFor((deliveries) => deliveries.length >= 2, 10_000);
        const afterExpiry = receiver.received[1]!;
        assert.equal(afterExpiry.signature.split(' ').length, 1);
        assert.ok(signedWith(newSecret, afterExpiry), 'the new secret signs');
        assert.ok(!signedWith(oldSecret, afterExpiry), 'the expired one does not');
      });
    });

    describe(`webhook retry window with a production-like backoff (test clock) [${dialect.name}]`, {
      skip: dialect.skip,
      concurrency: false,
    }, () => {
      // One hour base: attempts at 0, 1 h, 3 h, 7 h, 15 h, and the next regular one would be at 31 h.
      // A 10 s delivery timeout: a slow answer must not time out on a loaded CI host, where a failed
      // attempt would wait an hour of test clock for its retry.
      const ctx = useApp(dialect.name, {
        env: { ...FAST_WEBHOOKS, WEBHOOK_RETRY_BASE_MS: String(HOUR), WEBHOOK_TIMEOUT_MS: '10000' },
      });

      it('keeps retrying until 24 hours have passed instead of giving up when the next backoff would overshoot', async () => {
        const { t, sink } = ctx;
        const { clock } = t;
        const receiver = await new WebhookReceiver().start();
        try {
          const partner = await newPartner({ t, sink }, 'signed-in');
          await setEndpoint(t.api, partner.token, receiver);
          receiver.respond = () => 500;
          await createAccount(t, partner.token);
          const [event] = await outboxEvents(t, partner.companyId);
          let seen = 0;
          for (let step = 0; step < 40; step++) {
            const row = await until(`attempt ${seen + 1}`, async () => {
              const [current] = await outboxEvents(t, partner.companyId);
              return current && current.attempts > seen && current.locked_until === null && current;
            });
            seen = row.attempts;
            if (row.status !== 'pending') break;
            assert.ok(
              row.next_attempt_at <= event!.created_at + DAY,
              `attempt ${seen} scheduled the next one ${((row.next_attempt_at - event!.created_at) / HOUR).toFixed(2)} h after the event, past the 24 h window`,
            );
            clock.advance(row.next_attempt_at - clock.now() + 1);
          }
          const [final] = await outboxEvents(t, partner.companyId);
          assert.equal(final!.status, 'failed');
          const attempts = await attemptsOf(t, event!.id);
          const lastAt = attempts.at(-1)!.created_at - event!.created_at;
          assert.ok(
            lastAt >= DAY,
            `gave up ${(lastAt / HOUR).toFixed(2)} h after the event was created; the partner guide promises retries for 24 h`,
          );
        } finally {
          await receiver.stop();
        }
      });

      it('does not send an event again while its own delivery is still in flight, even once the lease has run out', async (test) => {
        const { t, sink } = ctx;
        const { clock } = t;
        const { partner, receiver } = await subscribedPartner(test, { t, sink });
        // The answer comes well within the delivery timeout (10 s), but the lease (3 × the timeout, 30 s)
        // runs out meanwhile: the clock jumps 60 s, as it would for a process stalled that long.
        receiver.delayMs = 600;
        await createAccount(t, partner.token);
        const [event] = await outboxEvents(t, partner.companyId);
        await receiver.waitFor((deliveries) => deliveries.length >= 1, 10_000);
        clock.advance(60_000);
        const [settled] = await until('the event to be delivered', async () => {
          const rows = await outboxEvents(t, partner.companyId);
          return rows[0]?.status === 'delivered' && rows;
        });
        // Polls every 20 ms: several passes ran while the delivery was in flight, and more after it.
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.deepEqual(
          receiver.received.map((delivery) => delivery.id),
          [event!.id],
          'sent once',
        );
        assert.equal(settled!.attempts, 1);
        assert.equal((await attemptsOf(t, event!.id)).length, 1);
      });
    });
  }
});
