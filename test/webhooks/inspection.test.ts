import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError, ISO_MILLIS, retryAfterSeconds, until } from '../support/assertions.js';
import { listAll } from '../support/http.js';
import { createAccount, newPartner } from '../support/partners.js';
import { DELIVERIES, EVENTS, eventUrl, retryUrl, WEBHOOK, WEBHOOK_TEST } from '../support/paths.js';
import { attemptsOf, auditActions, outboxEvents } from '../support/records.js';
import { allDeliveries, setEndpoint, startReceiver, verifiedPayload } from '../support/webhooks.js';

/** The excerpt's cap in bytes (docs/decisions.md, "Inspecting deliveries"). */
const EXCERPT_BYTES = 500;
/** How long a body is read after its status line, at most (the same entry). */
const BODY_READ_MS = 2000;
const RETRY_BASE_MS = 600_000;
const TIMEOUT_MS = 20_000;

// biome-ignore lint/suspicious/noExplicitAny: events and attempts as the API returns them.
type Item = Record<string, any>;

/** Writes the status line, then `body` in 64 KiB chunks as the socket drains; resolves how it ended. */
function streamBody(response: http.ServerResponse, status: number, body: Buffer) {
  return new Promise<{ finished: boolean; written: number }>((resolve) => {
    let written = 0;
    response.on('close', () => resolve({ finished: response.writableFinished, written }));
    response.writeHead(status, { 'content-type': 'text/plain', 'content-length': body.length });
    const next = () => {
      while (written < body.length && !response.destroyed) {
        const chunk = body.subarray(written, written + 64 * 1024);
        written += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', next);
      }
      if (!response.destroyed) response.end();
    };
    next();
  });
}

describe('webhook inspection', { concurrency: true }, () => {
  for (const dialect of DIALECTS) {
    // One test at a time: the caps are timed, and a loaded machine must not blur them.
    describe(`delivery inspection and test events [${dialect.name}]`, {
      skip: dialect.skip,
      concurrency: false,
    }, () => {
      // A delivery timeout far beyond the body's time cap: the cap, not the timeout, must end a slow answer.
      const ctx = useApp(dialect.name, {
        env: {
          WEBHOOK_POLL_MS: '20',
          WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
          WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        },
      });

      it("keeps each attempt's answer as a text excerpt: capped at 500 bytes, control characters stripped, a cut character dropped", async (test) => {
        const { t, sink } = ctx;
        const receiver = await startReceiver(test);
        const partner = await newPartner({ t, sink }, 'sandbox');
        await setEndpoint(t.api, partner.token, receiver);
        // 17 bytes of text with controls, then two-byte characters: byte 500 falls inside one.
        const head = 'no\u0000\u0007 such\r\n\tacct:';
        const body = `${head}${'é'.repeat(400)}`;
        receiver.reply = (_delivery, response) => {
          response.writeHead(422, { 'content-type': 'text/plain; charset=utf-8' });
          response.end(body);
        };
        await createAccount(t, partner.sandboxKey);
        const [event] = await outboxEvents(t, partner.companyId);
        await until('the first attempt', async () => (await attemptsOf(t, event!.id))[0]);

        const [attempt] = await allDeliveries(t, partner.token);
        assert.equal(attempt.status_code, 422);
        assert.equal(attempt.error, 'http_422');
        const headBytes = Buffer.byteLength(head);
        const whole = Math.floor((EXCERPT_BYTES - headBytes) / 2);
        assert.equal((EXCERPT_BYTES - headBytes) % 2, 1, 'the cap cuts an é in two');
        assert.equal(attempt.response_body_excerpt, `no such\n\tacct:${'é'.repeat(whole)}`);
        const stored = (await attemptsOf(t, event!.id))[0]!;
        assert.equal(stored.response_body_excerpt, attempt.response_body_excerpt);

        // next_attempt_at is the worker's schedule: the backoff after the failed attempt.
        const pending = (await t.api.get(eventUrl(event!.id), { token: partner.token })).body.data;
        assert.equal(pending.delivery.status, 'pending');
        assert.match(pending.delivery.next_attempt_at, ISO_MILLIS);
        assert.equal(Date.parse(pending.delivery.next_attempt_at), stored.created_at + RETRY_BASE_MS);

        // A manual retry keeps its own excerpt; once delivered, no next attempt is due.
        receiver.reply = (_delivery, response) => response.end('{"received":true}');
        const retried = await t.api.post(retryUrl(attempt.id), undefined, { token: partner.token });
        assert.equal(retried.status, 201, retried.text);
        assert.equal(retried.body.data.response_body_excerpt, '{"received":true}');
        const delivered = (await t.api.get(eventUrl(event!.id), { token: partner.token })).body.data;
        assert.equal(delivered.delivery.status, 'delivered');
        assert.equal(delivered.delivery.next_attempt_at, null);
      });

      it('reads at most 500 bytes of a 5 MB answer and hangs up, without waiting for the rest', async (test) => {
        const { t, sink } = ctx;
        const receiver = await startReceiver(test);
        const partner = await newPartner({ t, sink }, 'sandbox');
        await setEndpoint(t.api, partner.token, receiver);
        let sent: Promise<{ finished: boolean; written: number }> | undefined;
        receiver.reply = (_delivery, response) => {
          sent = streamBody(response, 500, Buffer.alloc(5 * 1024 * 1024, 'x'));
        };
        const response = await t.api.post(WEBHOOK_TEST, undefined, { token: partner.token });
        assert.equal(response.status, 201, response.text);
        assert.equal(response.body.data.status_code, 500);
        assert.equal(response.body.data.response_body_excerpt, 'x'.repeat(EXCERPT_BYTES));
        const ended = await sent!;
        assert.equal(ended.finished, false, 'the sender hung up before the body was through');
      });

      it('stops reading a body that trickles after 2 s, well within the delivery timeout', async (test) => {
        const { t, sink } = ctx;
        const receiver = await startReceiver(test);
        const partner = await newPartner({ t, sink }, 'sandbox');
        await setEndpoint(t.api, partner.token, receiver);
        // How long after its status line the receiver was hung up on, as the receiver saw it.
        let heldMs: number | undefined;
        receiver.reply = (_delivery, response) => {
          response.writeHead(200, { 'content-type': 'text/plain' });
          response.write('accepted, still ');
          const answeredAt = performance.now();
          // One byte a second, never ending by itself.
          const trickle = setInterval(() => response.write('.'), 1000);
          response.on('close', () => {
            clearInterval(trickle);
            heldMs = performance.now() - answeredAt;
          });
        };
        const response = await t.api.post(WEBHOOK_TEST, undefined, { token: partner.token });
        assert.equal(response.status, 201, response.text);
        assert.equal(response.body.data.succeeded, true, 'the 200 came: a slow body does not fail it');
        assert.match(response.body.data.response_body_excerpt, /^accepted, still \.{0,5}$/);
        const held = await until('the receiver sees the hang-up', async () => heldMs);
        assert.ok(held >= BODY_READ_MS - 100, `read for the body's time cap (${held} ms)`);
        assert.ok(held < TIMEOUT_MS / 2, `long before the ${TIMEOUT_MS} ms delivery timeout (${held} ms)`);
      });

      it('sends a signed webhook.test event at once, answers with the attempt, and keeps the event settled', async (test) => {
        const { t, sink } = ctx;
        const receiver = await startReceiver(test);
        const partner = await newPartner({ t, sink }, 'sandbox');
        await setEndpoint(t.api, partner.token, receiver);
        receiver.reply = (_delivery, response) => {
          response.writeHead(202, { 'content-type': 'application/json' });
          response.end('{"ok":true}');
        };
        const response = await t.api.post(WEBHOOK_TEST, undefined, { token: partner.sandboxKey });
        assert.equal(response.status, 201, response.text);
        const attempt = response.body.data as Item;
        assert.equal(attempt.event_type, 'webhook.test');
        assert.equal(attempt.attempt, 1);
        assert.equal(attempt.trigger, 'manual');
        assert.equal(attempt.succeeded, true);
        assert.equal(attempt.status_code, 202);
        assert.equal(attempt.error, null);
        assert.equal(attempt.response_body_excerpt, '{"ok":true}');
        assert.ok(Number.isInteger(attempt.latency_ms) && attempt.latency_ms >= 0);

        assert.equal(receiver.received.length, 1);
        const delivery = receiver.received[0]!;
        assert.equal(delivery.id, attempt.event_id, 'webhook-id is the event id');
        const payload = verifiedPayload(delivery);
        assert.equal(payload.type, 'webhook.test');
        assert.equal(typeof payload.data.message, 'string');

        const event = (await t.api.get(eventUrl(attempt.event_id), { token: partner.sandboxKey })).body.data;
        assert.equal(event.type, 'webhook.test');
        assert.equal(event.created_at, payload.timestamp);
        assert.deepEqual(event.data, payload.data);
        assert.deepEqual(event.delivery, {
          status: 'delivered',
          attempts: 1,
          delivered_at: attempt.created_at,
          next_attempt_at: null,
        });
        const logged = await allDeliveries(t, partner.token, `event_id=${attempt.event_id}`);
        assert.deepEqual(logged, [attempt]);
        assert.equal((await auditActions(t, partner.companyId, 'webhook.test_sent')).length, 1);
      });

      it('records a refused test event as failed after its one attempt, never retried, with the answer and no signature', async (test) => {
        const { t, sink } = ctx;
        const receiver = await startReceiver(test);
        const partner = await newPartner({ t, sink }, 'sandbox');
        await setEndpoint(t.api, partner.token, receiver);
        // A receiver that echoes what it got, headers included.
        receiver.reply = (delivery, response) => {
          response.writeHead(401, { 'content-type': 'text/plain' });
          response.end(`bad signature ${delivery.signature} for ${delivery.id}`);
        };
        const response = await t.api.post(WEBHOOK_TEST, undefined, { token: partner.token });
        assert.equal(response.status, 201, response.text);
        const attempt = response.body.data as Item;
        assert.equal(attempt.succeeded, false);
        assert.equal(attempt.status_code, 401);
        assert.equal(attempt.error, 'http_401');
        const signature = receiver.received[0]!.signature;
        assert.match(signature, /^v1,/);
        assert.equal(attempt.response_body_excerpt, `bad signature [redacted] for ${attempt.event_id}`);
        const [stored] = await attemptsOf(t, attempt.event_id);
        assert.ok(!String(stored!.response_body_excerpt).includes(signature.slice(3)));

        // Several of the worker's polls later, still one attempt: a failed test is not retried.
        await sleep(300);
        assert.equal(receiver.received.length, 1);
        const event = (await t.api.get(eventUrl(attempt.event_id), { token: partner.token })).body.data;
        assert.equal(event.delivery.status, 'failed');
        assert.equal(event.delivery.attempts, 1);
        assert.equal(event.delivery.next_attempt_at, null);
      });

      it('answers a repeated Idempotency-Key with the first outcome, sending once; 409 without an endpoint', async (test) => {
        const { t, sink } = ctx;
        const receiver = await startReceiver(test);
        const partner = await newPartner({ t, sink }, 'sandbox');
        assertError(
          await t.api.post(WEBHOOK_TEST, undefined, { token: partner.token }),
          409,
          'WEBHOOK_ENDPOINT_REQUIRED',
        );
        await setEndpoint(t.api, partner.token, receiver);
        const headers = { 'Idempotency-Key': randomUUID() };
        const first = await t.api.post(WEBHOOK_TEST, undefined, { token: partner.token, headers });
        const again = await t.api.post(WEBHOOK_TEST, undefined, { token: partner.token, headers });
        assert.equal(first.status, 201, first.text);
        assert.equal(again.status, 201, again.text);
        assert.equal(again.headers.get('idempotent-replayed'), 'true');
        assert.deepEqual(again.body, first.body);
        assert.equal(receiver.received.length, 1);

        const deleted = await t.api.delete(WEBHOOK, { token: partner.token });
        assert.equal(deleted.status, 200, deleted.text);
        assertError(
          await t.api.post(WEBHOOK_TEST, undefined, { token: partner.token }),
          409,
          'WEBHOOK_ENDPOINT_REQUIRED',
        );
      });

      it('counts test events in the manual resend budget: the 11th in a minute is 429 RATE_LIMITED, and nothing is sent', async (test) => {
        const { t, sink } = ctx;
        const receiver = await startReceiver(test);
        const partner = await newPartner({ t, sink }, 'sandbox');
        await setEndpoint(t.api, partner.token, receiver);
        for (let sent = 0; sent < 10; sent++) {
          const response = await t.api.post(WEBHOOK_TEST, undefined, { token: partner.token });
          assert.equal(response.status, 201, response.text);
        }
        const refused = await t.api.post(WEBHOOK_TEST, undefined, { token: partner.token });
        assertError(refused, 429, 'RATE_LIMITED');
        assert.ok(retryAfterSeconds(refused) > 0);
        assert.equal(receiver.received.length, 10);
      });

      it('filters events by delivery status, alone or with a type, with cursors bound to the filter', async (test) => {
        const { t, sink } = ctx;
        const receiver = await startReceiver(test);
        const partner = await newPartner({ t, sink }, 'sandbox');
        // Before the endpoint is set: written skipped. (Deleting the endpoint later would skip the
        // pending one too: an endpoint's backlog goes with it.)
        const skipped = await createAccount(t, partner.sandboxKey);
        await setEndpoint(t.api, partner.token, receiver);
        const eventOf = async (accountNumber: string) => {
          const events = await listAll(t, `${EVENTS}?type=virtual_account.created`, partner.token);
          return events.find((event: Item) => event.data.account_number === accountNumber) as Item;
        };

        const delivered = await createAccount(t, partner.sandboxKey);
        await receiver.waitFor((deliveries) => deliveries.length >= 1);
        receiver.respond = () => 503;
        const pending = await createAccount(t, partner.sandboxKey);
        await receiver.waitFor((deliveries) => deliveries.length >= 2);
        const failedTest = await t.api.post(WEBHOOK_TEST, undefined, { token: partner.token });
        assert.equal(failedTest.status, 201, failedTest.text);

        const expected: Record<string, string[]> = {
          delivered: [(await eventOf(delivered.account_number)).id],
          pending: [(await eventOf(pending.account_number)).id],
          failed: [failedTest.body.data.event_id],
          skipped: [(await eventOf(skipped.account_number)).id],
        };
        await until('the first account event delivered', async () =>
          (await t.api.get(eventUrl(expected.delivered![0]!), { token: partner.token })).body.data.delivery
            .status === 'delivered'
            ? true
            : undefined,
        );
        for (const [status, ids] of Object.entries(expected)) {
          const items = await listAll(t, `${EVENTS}?delivery_status=${status}`, partner.token);
          assert.deepEqual(
            items.map((item: Item) => item.id),
            ids,
            `delivery_status=${status}`,
          );
          assert.ok(items.every((item: Item) => item.delivery.status === status));
        }
        const both = await listAll(t, `${EVENTS}?delivery_status=failed&type=webhook.test`, partner.token);
        assert.deepEqual(
          both.map((item: Item) => item.id),
          expected.failed,
        );
        const none = await listAll(
          t,
          `${EVENTS}?delivery_status=failed&type=virtual_account.created`,
          partner.token,
        );
        assert.deepEqual(none, []);

        // Two pending events (the second failing too), a page of one: its cursor serves that filter only.
        await setEndpoint(t.api, partner.token, receiver);
        await createAccount(t, partner.sandboxKey);
        await until('a second pending event', async () => {
          const items = await listAll(t, `${EVENTS}?delivery_status=pending`, partner.token);
          return items.length === 2 && items.every((item: Item) => item.delivery.attempts === 1)
            ? true
            : undefined;
        });
        const page = await t.api.get(`${EVENTS}?delivery_status=pending&limit=1`, { token: partner.token });
        assert.equal(page.status, 200, page.text);
        const cursor = page.body.data.next_cursor as string;
        assert.ok(cursor);
        const next = await t.api.get(`${EVENTS}?delivery_status=pending&limit=1&cursor=${cursor}`, {
          token: partner.token,
        });
        assert.deepEqual(
          next.body.data.items.map((item: Item) => item.id),
          expected.pending,
        );
        assertError(
          await t.api.get(`${EVENTS}?delivery_status=delivered&limit=1&cursor=${cursor}`, {
            token: partner.token,
          }),
          422,
          'VALIDATION_FAILED',
          { fields: ['cursor'] },
        );
        assertError(
          await t.api.get(`${EVENTS}?delivery_status=lost`, { token: partner.token }),
          422,
          'VALIDATION_FAILED',
          { fields: ['delivery_status'] },
        );
      });

      it('lists the excerpt with every attempt in the delivery log, null when no answer came', async (test) => {
        const { t, sink } = ctx;
        const receiver = await startReceiver(test);
        const partner = await newPartner({ t, sink }, 'sandbox');
        await setEndpoint(t.api, partner.token, receiver);
        receiver.reply = (_delivery, response) => response.end('');
        const empty = await t.api.post(WEBHOOK_TEST, undefined, { token: partner.token });
        assert.equal(empty.body.data.response_body_excerpt, null, 'an empty body has no excerpt');
        await receiver.stop();
        const refused = await t.api.post(WEBHOOK_TEST, undefined, { token: partner.token });
        assert.equal(refused.status, 201, refused.text);
        assert.equal(refused.body.data.error, 'connection_failed');
        assert.equal(refused.body.data.response_body_excerpt, null);
        const log = await t.api.get(DELIVERIES, { token: partner.token });
        assert.deepEqual(
          log.body.data.items.map((item: Item) => [item.id, item.response_body_excerpt]),
          [
            [refused.body.data.id, null],
            [empty.body.data.id, null],
          ],
        );
      });
    });
  }
});
