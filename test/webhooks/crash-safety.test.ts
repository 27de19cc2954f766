import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/app.js';
import { until } from '../support/assertions.js';
import { createAccount, newPartner } from '../support/partners.js';
import { WEBHOOK } from '../support/paths.js';
import { attemptsOf, outboxEvents } from '../support/records.js';
import { ChildServer, serverEnv } from '../support/server-process.js';
import { freePort, SmtpSink } from '../support/smtp-sink.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { settled, verifiedPayload } from '../support/webhooks.js';

// The dialects' suites are independent (a database each), so they run side by side.
describe('webhook crash safety', { concurrency: true }, () => {
  for (const dialect of DIALECTS) {
    describe(`webhook delivery across a crash (real server process) [${dialect.name}]`, {
      skip: dialect.skip,
    }, () => {
      let database: TestDatabase;
      let handle: ReturnType<TestDatabase['open']>;
      let sink: SmtpSink;
      let server: ChildServer | undefined;
      let receiver: WebhookReceiver | undefined;
      before(async () => {
        sink = await new SmtpSink().start();
        database = await createTestDatabase(dialect.name);
        handle = database.open();
      });
      after(async () => {
        await server?.dispose();
        await receiver?.stop();
        await handle?.close();
        await database?.drop();
        await sink?.stop();
      });

      it('delivers every event at least once, with a stable webhook-id, after a SIGKILL mid-delivery and a restart', async () => {
        const env = serverEnv(database, {
          HOST: '127.0.0.1',
          SMTP_URL: sink.url,
          WEBHOOK_ALLOW_PRIVATE: 'true',
          WEBHOOK_POLL_MS: '20',
          WEBHOOK_RETRY_BASE_MS: '50',
          WEBHOOK_TIMEOUT_MS: '1000',
        });
        const child = new ChildServer(await freePort(), env);
        server = child;
        await child.start();
        const partner = await newPartner({ t: child, sink }, 'signed-in');

        // The receiver is down: events queue up and fail with connection refused.
        const receiverPort = await freePort();
        const set = await child.api.put(
          WEBHOOK,
          { url: `http://127.0.0.1:${receiverPort}/hooks` },
          { token: partner.token },
        );
        assert.equal(set.status, 201, set.text);
        const created: string[] = [];
        for (let i = 0; i < 3; i++) created.push((await createAccount(child, partner.token)).account_number);
        const [first] = await outboxEvents(handle, partner.companyId);
        await until('a refused attempt', async () => (await attemptsOf(handle, first!.id)).length >= 1);

        // The receiver comes back, but slowly: the server dies while a delivery is in flight.
        const slow = new WebhookReceiver();
        receiver = slow;
        slow.secret = set.body.data.secret;
        slow.delayMs = 10_000;
        await slow.start(receiverPort);
        for (let i = 0; i < 2; i++) created.push((await createAccount(child, partner.token)).account_number);
        await slow.waitFor((deliveries) => deliveries.length >= 1, 10_000);
        const inFlight = slow.received[0]!.id;
        await child.kill();
        slow.delayMs = 0;

        await child.start();
        const numbers = () =>
          new Set(slow.received.map((delivery) => verifiedPayload(delivery).data.account_number));
        await slow.waitFor(() => created.every((number) => numbers().has(number)), 20_000);
        const events = await settled(handle, partner.companyId, 10_000);

        assert.equal(events.length, 5, 'every event committed before the crash is still there');
        assert.ok(
          events.every((event) => event.status === 'delivered'),
          JSON.stringify(events.map((event) => event.status)),
        );
        const idOf = new Map<string, string>();
        for (const delivery of slow.received) {
          const number = verifiedPayload(delivery).data.account_number as string;
          const known = idOf.get(number);
          if (known) assert.equal(delivery.id, known, `account ${number} was sent with two webhook-ids`);
          idOf.set(number, delivery.id);
        }
        assert.deepEqual(
          created.map((number) => idOf.get(number)),
          events.map((event) => event.id),
          'one webhook-id per event, the outbox id, in creation order',
        );
        assert.ok(
          slow.received.filter((delivery) => delivery.id === inFlight).length >= 2,
          'the delivery cut off by the crash was sent again',
        );
      });
    });
  }
});
