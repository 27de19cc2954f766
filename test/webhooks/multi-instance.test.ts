import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, DIALECTS, startApp, type TestDatabase } from '../support/app.js';
import { createAccount, newPartner, type PartnerAt } from '../support/partners.js';
import { attemptsOf, outboxEvents } from '../support/records.js';
import { SmtpSink } from '../support/smtp-sink.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { FAST_WEBHOOKS, setEndpoint, settled, verifiedPayload } from '../support/webhooks.js';

type Instance = Awaited<ReturnType<typeof startApp>>;

const PARTNERS = 3;
const EVENTS_PER_PARTNER = 10;

// The dialects' suites are independent (a database each), so they run side by side.
describe('webhook workers of several instances', { concurrency: true }, () => {
  for (const dialect of DIALECTS) {
    describe(`two app instances on one database [${dialect.name}]`, { skip: dialect.skip }, () => {
      let database: TestDatabase;
      let handle: ReturnType<TestDatabase['open']>;
      let sink: SmtpSink;
      const instances: Instance[] = [];
      const receivers: WebhookReceiver[] = [];
      before(async () => {
        sink = await new SmtpSink().start();
        database = await createTestDatabase(dialect.name);
        const env = { SMTP_URL: sink.url, ...FAST_WEBHOOKS };
        // One after the other: both migrate the same database at start-up.
        instances.push(await startApp(database, { env }));
        instances.push(await startApp(database, { env }));
        handle = database.open();
      });
      after(async () => {
        for (const instance of instances) await instance.stop();
        for (const receiver of receivers) await receiver.stop();
        await handle?.close();
        await database?.drop();
        await sink?.stop();
      });

      it('sends each event exactly once (no duplicate webhook-id) and in order per partner while both workers run', async () => {
        const [a, b] = instances as [Instance, Instance];
        const partners: PartnerAt<'signed-in'>[] = [];
        for (let i = 0; i < PARTNERS; i++) {
          const partner = await newPartner({ t: i % 2 === 0 ? a : b, sink }, 'signed-in');
          const receiver = await new WebhookReceiver().start();
          receivers.push(receiver);
          await setEndpoint((i % 2 === 0 ? b : a).api, partner.token, receiver);
          partners.push(partner);
        }

        // Every partner creates accounts through both instances, the partners at the same time.
        const created = await Promise.all(
          partners.map(async (partner) => {
            const numbers: string[] = [];
            for (let i = 0; i < EVENTS_PER_PARTNER; i++) {
              const instance = i % 2 === 0 ? a : b;
              numbers.push((await createAccount(instance, partner.token)).account_number);
            }
            return numbers;
          }),
        );

        for (const [index, partner] of partners.entries()) {
          const receiver = receivers[index]!;
          await receiver.waitFor((deliveries) => deliveries.length >= EVENTS_PER_PARTNER, 15_000);
          const events = await settled(handle, partner.companyId, 10_000);
          assert.equal(events.length, EVENTS_PER_PARTNER);
          assert.ok(events.every((event) => event.status === 'delivered'));

          const ids = receiver.received.map((delivery) => delivery.id);
          assert.equal(
            ids.length,
            EVENTS_PER_PARTNER,
            `partner ${index} got ${ids.length} deliveries: duplicates`,
          );
          assert.deepEqual(
            [...ids].sort(),
            events.map((event) => event.id).sort(),
            'each webhook-id exactly once',
          );
          assert.deepEqual(
            receiver.received.map((delivery) => verifiedPayload(delivery).data.account_number),
            created[index],
            'in creation order',
          );
          for (const event of events) {
            const attempts = await attemptsOf(handle, event.id);
            assert.deepEqual(
              attempts.map((attempt) => [attempt.attempt, attempt.status_code]),
              [[1, 200]],
              `event ${event.id}: one attempt`,
            );
          }
        }
        const all = (
          await Promise.all(partners.map((partner) => outboxEvents(handle, partner.companyId)))
        ).flat();
        assert.equal(all.length, PARTNERS * EVENTS_PER_PARTNER);
      });
    });
  }
});
