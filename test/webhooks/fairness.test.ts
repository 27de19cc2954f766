import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS, useApp } from '../support/app.js';
import { createAccount } from '../support/partners.js';
import { outboxEvents } from '../support/records.js';
import { FAST_WEBHOOKS, subscribedPartner, verifiedPayload } from '../support/webhooks.js';

const BACKLOG = 2000;
const SLOW_MS = 200;
/** How long partner B's one event may wait behind partner A's backlog: a few passes, not A's 400 s. */
const BOUND_MS = 3000;

const SETTINGS = [
  { endpoint: 1, instance: 20 },
  { endpoint: 4, instance: 4 },
] as const;

// The dialects' suites are independent (a database each), so they run side by side.
describe('webhook fairness between partners', { concurrency: true }, () => {
  for (const dialect of DIALECTS) {
    for (const caps of SETTINGS) {
      describe(`${caps.endpoint} in flight an endpoint, ${caps.instance} an instance [${dialect.name}]`, {
        skip: dialect.skip,
      }, () => {
        const ctx = useApp(dialect.name, {
          env: {
            ...FAST_WEBHOOKS,
            WEBHOOK_TIMEOUT_MS: '5000',
            WEBHOOK_CONCURRENCY: String(caps.instance),
            WEBHOOK_ENDPOINT_CONCURRENCY: String(caps.endpoint),
          },
        });

        it(`delivers partner B's event within ${BOUND_MS} ms while partner A has ${BACKLOG} due events and a slow receiver`, async (test) => {
          const { t, sink } = ctx;
          const a = await subscribedPartner(test, { t, sink });
          let active = 0;
          let most = 0;
          a.receiver.reply = (_delivery, response) => {
            active += 1;
            most = Math.max(most, active);
            setTimeout(() => {
              active -= 1;
              response.writeHead(200).end('ok');
            }, SLOW_MS).unref();
          };
          // A's backlog, older than anything B will have, written in one statement as a bulk load would.
          const due = t.clock.now() - 60_000;
          await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${sql.lit(BACKLOG)})
            insert into outbox_events (id, partner_id, environment, type, payload, created_at, status,
              attempts, next_attempt_at)
            select 'msg_backlog' || cast(100000 + i as text), ${a.partner.companyId}, 'sandbox',
              'webhook.test', '{"message":"backlog"}', ${sql.lit(due)} + i, 'pending', 0, ${sql.lit(due)} + i
            from n`.execute(t.db);
          await a.receiver.waitFor((deliveries) => deliveries.length >= 1, 10_000);

          const b = await subscribedPartner(test, { t, sink });
          const started = Date.now();
          const account = await createAccount(t, b.partner.token);
          await b.receiver.waitFor((deliveries) => deliveries.length >= 1, BOUND_MS);
          const waited = Date.now() - started;
          assert.ok(waited <= BOUND_MS, `B waited ${waited} ms`);
          assert.equal(verifiedPayload(b.receiver.received[0]!).data.account_number, account.account_number);

          const pending = (await outboxEvents(t, a.partner.companyId)).filter(
            (event) => event.status === 'pending',
          );
          assert.ok(pending.length > BACKLOG / 2, `A's backlog is still there (${pending.length} pending)`);
          assert.ok(
            most <= caps.endpoint,
            `A's receiver had ${most} requests at once, over ${caps.endpoint}`,
          );
          if (caps.endpoint > 1) assert.ok(most > 1, "A's receiver got requests side by side");
          const order = a.receiver.received.map((delivery) => delivery.id);
          if (caps.endpoint === 1)
            assert.deepEqual(order, [...order].sort(), "A's backlog went out oldest first, one at a time");
        });
      });
    }
  }
});
