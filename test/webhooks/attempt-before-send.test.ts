import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/app.js';
import { createAccount, newPartner } from '../support/partners.js';
import { DELIVERIES, WEBHOOK } from '../support/paths.js';
import { attemptsOf } from '../support/records.js';
import { ChildServer, serverEnv } from '../support/server-process.js';
import { freePort, SmtpSink } from '../support/smtp-sink.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { settled } from '../support/webhooks.js';

// The dialects' suites are independent (a database each), so they run side by side.
describe('webhook attempts recorded before they are sent', { concurrency: true }, () => {
  for (const dialect of DIALECTS) {
    describe(`a delivery the process died in (real server process) [${dialect.name}]`, {
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

      it('shows an attempt the receiver got while the server died as outcome_unknown, then the redelivery with the same webhook-id', async () => {
        const child = new ChildServer(
          await freePort(),
          serverEnv(database, {
            HOST: '127.0.0.1',
            SMTP_URL: sink.url,
            WEBHOOK_ALLOW_PRIVATE: 'true',
            WEBHOOK_POLL_MS: '20',
            WEBHOOK_RETRY_BASE_MS: '50',
            WEBHOOK_TIMEOUT_MS: '1000',
          }),
        );
        server = child;
        await child.start();
        const partner = await newPartner({ t: child, sink }, 'signed-in');

        // The first delivery kills the server before it can answer: the sender never records an outcome.
        const hooks = new WebhookReceiver();
        receiver = hooks;
        let killed: Promise<void> | undefined;
        hooks.reply = (_delivery, response) => {
          if (!killed) {
            killed = child.kill();
            return;
          }
          response.writeHead(200).end('ok');
        };
        await hooks.start();
        const set = await child.api.put(WEBHOOK, { url: hooks.url }, { token: partner.token });
        assert.equal(set.status, 201, set.text);
        hooks.secret = set.body.data.secret;
        await createAccount(child, partner.token);
        await hooks.waitFor((deliveries) => deliveries.length >= 1, 10_000);
        await killed;

        // Written before the request went out: the attempt is there although the process died mid-send.
        const [written] = await attemptsOf(handle, hooks.received[0]!.id, { inFlight: true });
        assert.ok(written, 'the attempt the receiver got is in the log');
        assert.notEqual(written.in_flight_until, null, 'with no outcome');

        await child.start();
        await hooks.waitFor((deliveries) => deliveries.length >= 2, 20_000);
        const [event] = await settled(handle, partner.companyId, 10_000);
        assert.equal(event!.status, 'delivered');
        assert.deepEqual(
          hooks.received.map((delivery) => delivery.id),
          [event!.id, event!.id],
          'sent twice, with the same webhook-id',
        );

        const log = await child.api.get(DELIVERIES, { token: partner.token });
        assert.equal(log.status, 200, log.text);
        const entries = (log.body.data.items as Array<Record<string, unknown>>)
          .map((item) => [
            item['event_id'],
            item['attempt'],
            item['status'],
            item['succeeded'],
            item['status_code'],
          ])
          .reverse();
        assert.deepEqual(
          entries,
          [
            [event!.id, 1, 'outcome_unknown', false, null],
            [event!.id, 2, 'succeeded', true, 200],
          ],
          'the delivery log shows every delivery the receiver saw',
        );
      });
    });
  }
});
