import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { createTestDatabase, DIALECTS, TEST_ADMIN_KEY, type TestDatabase } from '../support/app.js';
import { until } from '../support/assertions.js';
import { createAccount, newPartner } from '../support/partners.js';
import { attemptsOf, outboxEvents } from '../support/records.js';
import {
  type ServerProcess,
  serverEnv,
  spawnServer,
  stopServer,
  waitUntilReady,
} from '../support/server-process.js';
import { freePort, SmtpSink } from '../support/smtp-sink.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { setEndpoint } from '../support/webhooks.js';

/*
 * Graceful shutdown drains the workers (issue 32; docs/operations.md, "Stopping and crashing"): the
 * real server gets SIGTERM while a webhook delivery is in flight to a receiver that answers slowly.
 * It stops accepting at once, lets the attempt finish and record itself, and exits 0 within
 * SHUTDOWN_GRACE_MS; an instance started afterwards does not send it again. When the grace is
 * shorter than the attempt, the process exits 0 at the grace and leaves the event leased.
 */

const RECEIVER_DELAY_MS = 2_500;
const GRACE_MS = 15_000;

for (const dialect of DIALECTS) {
  describe(`graceful shutdown with a webhook attempt in flight [${dialect.name}]`, {
    skip: dialect.skip,
  }, () => {
    let database: TestDatabase;
    let sink: SmtpSink;
    let receiver: WebhookReceiver;
    let server: ServerProcess | undefined;
    let handle: DatabaseHandle | undefined;
    let env: Record<string, string>;

    const start = async (extra: Record<string, string> = {}) => {
      server = spawnServer({ ...env, ...extra, PORT: String(await freePort()) });
      await waitUntilReady(server);
      return server;
    };

    before(async () => {
      database = await createTestDatabase(dialect.name);
      sink = await new SmtpSink().start();
      receiver = await new WebhookReceiver().start();
      env = serverEnv(database, {
        ADMIN_API_KEY: TEST_ADMIN_KEY,
        SMTP_URL: sink.url,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_POLL_MS: '50',
        SHUTDOWN_GRACE_MS: String(GRACE_MS),
      });
    });

    after(async () => {
      await stopServer(server).catch(() => undefined);
      await handle?.close().catch(() => undefined);
      await receiver?.stop().catch(() => undefined);
      await sink?.stop().catch(() => undefined);
      await database?.drop();
    });

    it('lets the attempt in flight finish and record itself once, refuses new connections, exits 0 within the grace', async () => {
      const running = await start();
      const partner = await newPartner({ t: { api: running.api }, sink }, 'sandbox');
      await setEndpoint(running.api, partner.token, receiver);
      receiver.delayMs = RECEIVER_DELAY_MS;
      await createAccount({ api: running.api }, partner.sandboxKey);
      await receiver.waitFor((deliveries) => deliveries.length === 1, 15_000);

      const signalledAt = Date.now();
      running.child.kill('SIGTERM');
      // The listener closes at once: a new connection is refused while the attempt finishes.
      await until('new connections refused', () =>
        fetch(`${running.url}/livez`).then(
          () => false,
          () => true,
        ),
      );
      assert.equal(running.child.exitCode, null, 'still running: the attempt is in flight');
      assert.equal(await running.exited, 0, running.output());
      const took = Date.now() - signalledAt;
      assert.ok(took >= RECEIVER_DELAY_MS - 1_000, `exited after ${took} ms: before the attempt ended`);
      assert.ok(took < GRACE_MS, `exited after ${took} ms`);
      server = undefined;

      handle = database.open();
      const [event] = await outboxEvents(handle, partner.companyId);
      assert.ok(event);
      assert.equal(event.status, 'delivered');
      const attempts = await attemptsOf(handle, event.id);
      assert.equal(attempts.length, 1, 'one attempt recorded');
      assert.equal(attempts[0]!.status_code, 200);

      // The next instance has nothing to send again.
      receiver.delayMs = 0;
      await start();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      assert.equal(receiver.received.length, 1, 'the event was sent again');
      assert.equal(await stopServer(server, 'SIGTERM'), 0);
      server = undefined;
    });

    it('exits 0 at SHUTDOWN_GRACE_MS when an attempt outlasts it, leaving the event leased', async () => {
      const running = await start({ SHUTDOWN_GRACE_MS: '1000', WEBHOOK_TIMEOUT_MS: '20000' });
      const partner = await newPartner({ t: { api: running.api }, sink }, 'sandbox');
      await setEndpoint(running.api, partner.token, receiver);
      const before = receiver.received.length;
      receiver.delayMs = 10_000;
      await createAccount({ api: running.api }, partner.sandboxKey);
      await receiver.waitFor((deliveries) => deliveries.length === before + 1, 15_000);
      const signalledAt = Date.now();
      running.child.kill('SIGTERM');
      assert.equal(await running.exited, 0, running.output());
      const took = Date.now() - signalledAt;
      assert.ok(took < 5_000, `exited after ${took} ms`);
      server = undefined;
      handle ??= database.open();
      const [event] = await outboxEvents(handle, partner.companyId);
      assert.ok(event);
      assert.equal(event.status, 'pending', 'unfinished: still to deliver');
      assert.ok(Number(event.locked_until) > Date.now(), 'leased: no other instance sends it meanwhile');
    });
  });
}
