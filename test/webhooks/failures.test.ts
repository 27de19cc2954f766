import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS, useApp } from '../support/app.js';
import { ISO_MILLIS, UUID, until } from '../support/assertions.js';
import { TestClock } from '../support/clock.js';
import { createAccount, newPartner } from '../support/partners.js';
import { DELIVERIES, retryUrl, WEBHOOK } from '../support/paths.js';
import { attemptsOf, outboxEvents } from '../support/records.js';
import { freePort } from '../support/smtp-sink.js';
import { NonHttpServer, WebhookReceiver } from '../support/webhook-receiver.js';
import {
  allDeliveries,
  FAST_WEBHOOKS,
  fakeDns,
  firstAttempt,
  logLinesWith,
  setEndpoint,
  settled,
  startReceiver,
  subscribedPartner,
  verifiedPayload,
} from '../support/webhooks.js';

const TIMEOUT_MS = 1000;
const RETRY_BASE_MS = 50;

// The dialects' suites are independent (a database each), so they run side by side.
describe('webhook failures', { concurrency: true }, () => {
  for (const dialect of DIALECTS) {
    describe(`webhook failures and retries [${dialect.name}]`, {
      skip: dialect.skip,
      concurrency: true,
    }, () => {
      const ctx = useApp(dialect.name, {
        env: {
          ...FAST_WEBHOOKS,
          WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
          WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
        },
      });

      it('retries a receiver answering 500 with the same webhook-id until it answers 200', async (test) => {
        const { t, sink } = ctx;
        const { partner, receiver } = await subscribedPartner(test, { t, sink });
        receiver.respond = () => (receiver.received.length <= 2 ? 500 : 200);
        const account = await createAccount(t, partner.token);
        await receiver.waitFor((deliveries) => deliveries.length >= 3, 10_000);
        const [event] = await settled(t, partner.companyId);
        assert.equal(event!.status, 'delivered');
        assert.equal(event!.attempts, 3);
        assert.equal(event!.last_error, null);
        assert.deepEqual(
          receiver.received.map((delivery) => delivery.id),
          [event!.id, event!.id, event!.id],
        );
        for (const delivery of receiver.received) {
          assert.equal(verifiedPayload(delivery).data.account_number, account.account_number);
        }
        assert.equal(
          new Set(receiver.received.map((delivery) => delivery.body)).size,
          1,
          'the same body each time',
        );
        const attempts = await attemptsOf(t, event!.id);
        assert.deepEqual(
          attempts.map((attempt) => [
            attempt.attempt,
            attempt.status_code,
            attempt.succeeded,
            attempt.trigger,
          ]),
          [
            [1, 500, 0, 'automatic'],
            [2, 500, 0, 'automatic'],
            [3, 200, 1, 'automatic'],
          ],
        );
        assert.equal(receiver.received.length, 3, 'nothing is sent after the success');
      });

      it('treats a redirect as a failure and does not follow it', async (test) => {
        const { t, sink } = ctx;
        const { partner, receiver } = await subscribedPartner(test, { t, sink });
        receiver.respond = () => (receiver.received.length === 1 ? 302 : 200);
        await createAccount(t, partner.token);
        const [event] = await settled(t, partner.companyId);
        assert.equal(event!.status, 'delivered');
        const attempts = await attemptsOf(t, event!.id);
        assert.deepEqual(
          attempts.map((attempt) => attempt.status_code),
          [302, 200],
        );
        assert.equal(attempts[0]!.error, 'http_302');
      });

      it('records a receiver slower than WEBHOOK_TIMEOUT_MS as an error attempt and retries it', async (test) => {
        const { t, sink } = ctx;
        const { partner, receiver } = await subscribedPartner(test, { t, sink });
        receiver.respond = () => {
          receiver.delayMs = receiver.received.length === 1 ? TIMEOUT_MS * 2.5 : 0;
          return 200;
        };
        await createAccount(t, partner.token);
        const [event] = await settled(t, partner.companyId);
        assert.equal(event!.status, 'delivered');
        const attempts = await attemptsOf(t, event!.id);
        assert.equal(attempts.length, 2);
        assert.equal(attempts[0]!.succeeded, 0);
        assert.equal(attempts[0]!.status_code, null);
        assert.equal(attempts[0]!.error, 'timeout');
        assert.equal(attempts[0]!.latency_ms, 0, 'no timing without an answer');
        assert.equal(attempts[1]!.status_code, 200);
        assert.deepEqual(
          receiver.received.map((delivery) => delivery.id),
          [event!.id, event!.id],
        );
        const log = await allDeliveries(t, partner.token);
        const timedOut = log.find((item) => item.attempt === 1);
        assert.equal(timedOut.status_code, null, 'the API shows null for no answer');
        assert.equal(timedOut.error, 'timeout');
        assert.equal(timedOut.latency_ms, 0);
        assert.ok(
          logLinesWith(t, event!.id).some((line) => line.includes(`no response within ${TIMEOUT_MS} ms`)),
          'the server log keeps the cause',
        );
      });

      it('retries while the connection is refused and delivers once a receiver listens on the port again', async () => {
        const { t, sink } = ctx;
        const partner = await newPartner({ t, sink }, 'signed-in');
        const port = await freePort();
        const url = `http://127.0.0.1:${port}/hooks`;
        const set = await t.api.put(WEBHOOK, { url }, { token: partner.token });
        assert.equal(set.status, 201, set.text);
        const account = await createAccount(t, partner.token);
        const [event] = await outboxEvents(t, partner.companyId);
        await until('two refused attempts', async () => (await attemptsOf(t, event!.id)).length >= 2);

        const revived = await new WebhookReceiver().start(port);
        try {
          revived.secret = set.body.data.secret;
          await revived.waitFor((deliveries) => deliveries.length >= 1, 10_000);
          assert.equal(revived.received[0]!.id, event!.id);
          assert.equal(verifiedPayload(revived.received[0]!).data.account_number, account.account_number);
          const [done] = await settled(t, partner.companyId);
          assert.equal(done!.status, 'delivered');
          const attempts = await attemptsOf(t, event!.id);
          const refused = attempts.slice(0, -1);
          assert.ok(refused.length >= 2);
          for (const attempt of refused) {
            assert.equal(attempt.status_code, null);
            assert.equal(attempt.succeeded, 0);
            assert.equal(attempt.error, 'connection_failed');
            assert.equal(attempt.latency_ms, 0);
          }
          assert.equal(attempts.at(-1)!.status_code, 200);
        } finally {
          await revived.stop();
        }
      });

      it('backs off exponentially: base, 2·base, 4·base, 8·base, 16·base', async (test) => {
        const { t, sink } = ctx;
        const { partner, receiver } = await subscribedPartner(test, { t, sink });
        receiver.respond = () => (receiver.received.length <= 5 ? 503 : 200);
        await createAccount(t, partner.token);
        const [event] = await outboxEvents(t, partner.companyId);

        // After the 5th failure the event waits 16·base: long enough to read the schedule it was given.
        const fifth = await until('the fifth failed attempt', async () => {
          const row = await t.db
            .selectFrom('outbox_events')
            .selectAll()
            .where('id', '=', event!.id)
            .executeTakeFirstOrThrow();
          return row.attempts === 5 && row.lease_token === null && row;
        });
        const attempts = await attemptsOf(t, event!.id);
        assert.equal(fifth.status, 'pending');
        assert.equal(fifth.next_attempt_at - attempts[4]!.created_at, 16 * RETRY_BASE_MS);
        assert.equal(fifth.last_error, 'http_503');

        await settled(t, partner.companyId);
        const all = await attemptsOf(t, event!.id);
        assert.equal(all.length, 6);
        // Each retry waits at least its backoff (the worker may be later: it polls, and the suite shares it).
        const gaps = all.slice(1).map((attempt, index) => attempt.created_at - all[index]!.created_at);
        gaps.forEach((gap, index) => {
          const expected = RETRY_BASE_MS * 2 ** index;
          assert.ok(
            gap >= expected,
            `gap ${index + 1} is ${gap} ms, at least ${expected} ms expected (${gaps})`,
          );
        });
      });

      it('lists attempts in the delivery log with attempt number, status, latency and error; paginates and filters by event', async (test) => {
        const { t, sink } = ctx;
        const { partner, receiver } = await subscribedPartner(test, { t, sink });
        receiver.respond = () => (receiver.received.length <= 2 ? 500 : 200);
        await createAccount(t, partner.token);
        await settled(t, partner.companyId);
        await createAccount(t, partner.token);
        const events = await settled(t, partner.companyId);
        const [retried, straight] = events;

        const all = await allDeliveries(t, partner.token);
        assert.equal(all.length, 4);
        for (const item of all) {
          assert.match(item.id, UUID);
          assert.ok([retried!.id, straight!.id].includes(item.event_id));
          assert.equal(item.event_type, 'virtual_account.created');
          assert.equal(item.trigger, 'automatic');
          assert.equal(item.url, receiver.url);
          assert.ok(
            Number.isInteger(item.latency_ms) && item.latency_ms >= 0,
            `latency_ms ${item.latency_ms}`,
          );
          assert.match(item.created_at, ISO_MILLIS);
          assert.equal(item.succeeded, item.status_code === 200);
          assert.equal(item.error, item.succeeded ? null : 'http_500');
        }
        const times = all.map((item) => Date.parse(item.created_at));
        assert.deepEqual(
          times,
          [...times].sort((a, b) => b - a),
          'newest first',
        );

        const filtered = await allDeliveries(t, partner.token, `event_id=${encodeURIComponent(retried!.id)}`);
        assert.deepEqual(
          filtered.map((item) => [item.attempt, item.status_code]),
          [
            [3, 200],
            [2, 500],
            [1, 500],
          ],
        );
        const other = await allDeliveries(t, partner.token, `event_id=${encodeURIComponent(straight!.id)}`);
        assert.deepEqual(
          other.map((item) => [item.attempt, item.status_code]),
          [[1, 200]],
        );
        const unknown = await allDeliveries(t, partner.token, 'event_id=msg_unknown');
        assert.deepEqual(unknown, []);

        const first = await t.api.get(`${DELIVERIES}?limit=3`, { token: partner.token });
        assert.equal(first.status, 200);
        assert.equal(first.body.data.items.length, 3);
        assert.equal(typeof first.body.data.next_cursor, 'string');
        const second = await t.api.get(
          `${DELIVERIES}?limit=3&cursor=${encodeURIComponent(first.body.data.next_cursor)}`,
          { token: partner.token },
        );
        assert.equal(second.body.data.items.length, 1);
        assert.equal(second.body.data.next_cursor, null);
        assert.deepEqual(
          [...first.body.data.items, ...second.body.data.items].map((item: { id: string }) => item.id),
          all.map((item) => item.id),
        );
        const pagedOneByOne = await allDeliveries(t, partner.token, '', 1);
        assert.deepEqual(
          pagedOneByOne.map((item) => item.id),
          all.map((item) => item.id),
        );

        for (const query of ['limit=0', 'limit=101', 'limit=abc', 'cursor=not-a-cursor']) {
          const response = await t.api.get(`${DELIVERIES}?${query}`, { token: partner.token });
          assert.equal(response.status, 422, `${query}: ${response.text}`);
          assert.equal(response.body.error_code, 'VALIDATION_FAILED');
        }

        const stranger = await newPartner({ t, sink }, 'signed-in');
        const theirs = await t.api.get(DELIVERIES, { token: stranger.token });
        assert.deepEqual(theirs.body.data.items, [], "another partner's log is empty");
        const probe = await t.api.get(`${DELIVERIES}?event_id=${encodeURIComponent(retried!.id)}`, {
          token: stranger.token,
        });
        assert.deepEqual(probe.body.data.items, []);
      });

      it('skips events of an environment without an endpoint, and sends no skipped event later', async (test) => {
        const { t, sink } = ctx;
        const receiver = await startReceiver(test);
        const partner = await newPartner({ t, sink }, 'signed-in');
        await createAccount(t, partner.token);
        const [skipped] = await settled(t, partner.companyId);
        assert.equal(skipped!.status, 'skipped');
        assert.equal(skipped!.attempts, 0);
        assert.match(String(skipped!.last_error), /no webhook endpoint/);
        assert.deepEqual(await attemptsOf(t, skipped!.id), []);

        await setEndpoint(t.api, partner.token, receiver);
        const later = await createAccount(t, partner.token);
        await receiver.waitFor((deliveries) => deliveries.length >= 1, 10_000);
        await settled(t, partner.companyId);
        assert.deepEqual(
          receiver.received.map((delivery) => verifiedPayload(delivery).data.account_number),
          [later.account_number],
        );
      });

      it('skips a failing event once its endpoint is deleted', async (test) => {
        const { t, sink } = ctx;
        const { partner, receiver } = await subscribedPartner(test, { t, sink });
        receiver.respond = () => 500;
        await createAccount(t, partner.token);
        await receiver.waitFor((deliveries) => deliveries.length >= 2, 10_000);
        assert.equal((await t.api.delete(WEBHOOK, { token: partner.token })).status, 200);
        const [event] = await settled(t, partner.companyId);
        assert.equal(event!.status, 'skipped');
        const sent = receiver.received.length;
        assert.equal((await attemptsOf(t, event!.id)).length, sent);
      });
    });

    describe(`events written without the worker [${dialect.name}]`, {
      skip: dialect.skip,
      concurrency: true,
    }, () => {
      // The worker looks once at start and then not for an hour: what a test reads is what the
      // change itself wrote.
      const ctx = useApp(dialect.name, { env: { ...FAST_WEBHOOKS, WEBHOOK_POLL_MS: '3600000' } });

      it('writes the event of an environment without an endpoint as skipped, in the change itself', async (test) => {
        const { t, sink } = ctx;
        const partner = await newPartner({ t, sink }, 'signed-in');
        await createAccount(t, partner.token);
        const [skipped] = await outboxEvents(t, partner.companyId);
        assert.equal(skipped!.status, 'skipped');
        assert.equal(skipped!.attempts, 0);
        assert.match(String(skipped!.last_error), /no webhook endpoint/);

        const receiver = await startReceiver(test);
        await setEndpoint(t.api, partner.token, receiver);
        await createAccount(t, partner.token);
        const events = await outboxEvents(t, partner.companyId);
        assert.equal(events.length, 2);
        assert.notEqual(events[1]!.status, 'skipped', 'an event with an endpoint is delivered');
        assert.equal(events[1]!.last_error, null);
        assert.equal(events[0]!.status, 'skipped', 'an endpoint set later does not revive an earlier event');
      });
    });

    describe(`manual webhook retry [${dialect.name}]`, { skip: dialect.skip, concurrency: true }, () => {
      // A 10-minute backoff: after the first automatic attempt, only manual retries happen during a test.
      const ctx = useApp(dialect.name, { env: { ...FAST_WEBHOOKS, WEBHOOK_RETRY_BASE_MS: '600000' } });

      it('resends with the same webhook-id, records a manual attempt, and marks the event delivered on success', async (test) => {
        const { t, sink } = ctx;
        const { partner, receiver } = await subscribedPartner(test, { t, sink });
        receiver.respond = () => 500;
        const account = await createAccount(t, partner.token);
        await receiver.waitFor((deliveries) => deliveries.length >= 1, 10_000);
        const { event, attempt: automatic } = await firstAttempt(t, partner.companyId);

        const failedAgain = await t.api.post(retryUrl(automatic.id), undefined, { token: partner.token });
        assert.equal(failedAgain.status, 201, failedAgain.text);
        assert.equal(failedAgain.body.data.trigger, 'manual');
        assert.equal(failedAgain.body.data.attempt, 2);
        assert.equal(failedAgain.body.data.succeeded, false);
        assert.equal(failedAgain.body.data.status_code, 500);
        assert.equal(failedAgain.body.data.error, 'http_500');
        assert.equal(failedAgain.body.data.event_id, event!.id);
        const stillPending = (await outboxEvents(t, partner.companyId))[0]!;
        assert.equal(stillPending.status, 'pending');

        receiver.respond = () => 200;
        const retried = await t.api.post(retryUrl(automatic.id), undefined, { token: partner.token });
        assert.equal(retried.status, 201, retried.text);
        assert.match(retried.body.data.id, UUID);
        assert.equal(retried.body.data.trigger, 'manual');
        assert.equal(retried.body.data.attempt, 3);
        assert.equal(retried.body.data.succeeded, true);
        assert.equal(retried.body.data.status_code, 200);
        assert.equal(retried.body.data.error, null);
        assert.equal(retried.body.data.event_type, 'virtual_account.created');

        assert.equal(receiver.received.length, 3);
        assert.deepEqual(new Set(receiver.received.map((delivery) => delivery.id)), new Set([event!.id]));
        const payload = verifiedPayload(receiver.received[2]!);
        assert.equal(payload.data.account_number, account.account_number);
        assert.equal(
          receiver.received[2]!.body,
          receiver.received[0]!.body,
          'the same body as the first attempt',
        );

        const [delivered] = await outboxEvents(t, partner.companyId);
        assert.equal(delivered!.status, 'delivered');
        assert.ok(delivered!.delivered_at);
        const log = await allDeliveries(t, partner.token, `event_id=${encodeURIComponent(event!.id)}`);
        assert.deepEqual(
          log.map((item) => [item.attempt, item.trigger, item.status_code]),
          [
            [3, 'manual', 200],
            [2, 'manual', 500],
            [1, 'automatic', 500],
          ],
        );
      });

      it('limits manual retries to 10 a minute per partner (429 RATE_LIMITED with Retry-After), each partner on its own budget', async (test) => {
        const { t, sink } = ctx;
        const receiver = await startReceiver(test);
        const partner = await newPartner({ t, sink }, 'signed-in');
        const other = await newPartner({ t, sink }, 'signed-in');
        await setEndpoint(t.api, partner.token, receiver);
        await setEndpoint(t.api, other.token, receiver);
        receiver.respond = () => 500;
        await createAccount(t, partner.token);
        await createAccount(t, other.token);
        const { attempt: mine } = await firstAttempt(t, partner.companyId);
        const { attempt: theirs } = await firstAttempt(t, other.companyId);
        for (let retry = 1; retry <= 10; retry++) {
          const answer = await t.api.post(retryUrl(mine.id), undefined, { token: partner.token });
          assert.equal(answer.status, 201, `retry ${retry}: ${answer.text}`);
        }
        const sentBefore = receiver.received.length;
        const refused = await t.api.post(retryUrl(mine.id), undefined, { token: partner.token });
        assert.equal(refused.status, 429, refused.text);
        assert.equal(refused.body.error_code, 'RATE_LIMITED');
        const retryAfter = Number(refused.headers.get('retry-after'));
        assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
        assert.equal(receiver.received.length, sentBefore, 'a refused retry sends nothing');
        // Another partner keeps its own budget; the window passes.
        assert.equal((await t.api.post(retryUrl(theirs.id), undefined, { token: other.token })).status, 201);
        t.clock.advance(60_000);
        assert.equal((await t.api.post(retryUrl(mine.id), undefined, { token: partner.token })).status, 201);
      });

      it('answers a manual retry that got no HTTP answer with a generic reason, no timing and no socket text', async (test) => {
        const { t, sink } = ctx;
        const { partner, receiver } = await subscribedPartner(test, { t, sink });
        receiver.respond = () => 500;
        await createAccount(t, partner.token);
        const { event, attempt: automatic } = await firstAttempt(t, partner.companyId);
        const target = await new NonHttpServer().start();
        test.after(() => target.stop());
        const closedPort = await freePort();
        // A name of this dialect's own: the other dialect's suite runs at the same time in this process.
        const unresolvable = `hooks-${dialect.name}.unresolvable.test`;
        fakeDns(test, unresolvable, [['127.0.0.1'], { code: 'ENOTFOUND' }]);

        // What a scan of the operator's network through retries would see: a closed port, a port whose
        // server hangs up (a database), one that greets in another protocol (SSH), one that never
        // answers, a name that does not resolve.
        const cases: { url: string; behaviour?: NonHttpServer['behaviour']; error: string; cause: RegExp }[] =
          [
            {
              url: `http://127.0.0.1:${closedPort}/hooks`,
              error: 'connection_failed',
              cause: /ECONNREFUSED/,
            },
            { url: target.url, behaviour: 'hang-up', error: 'connection_failed', cause: /socket hang up/ },
            { url: target.url, behaviour: 'banner', error: 'connection_failed', cause: /HPE_|Parse Error/ },
            { url: target.url, behaviour: 'silent', error: 'timeout', cause: /no response within/ },
            {
              url: `http://${unresolvable}/hooks`,
              error: 'connection_failed',
              cause: /ENOTFOUND/,
            },
          ];
        for (const { url, behaviour, error, cause } of cases) {
          if (behaviour) target.behaviour = behaviour;
          const set = await t.api.put(WEBHOOK, { url }, { token: partner.token });
          assert.equal(set.status, 200, set.text);
          const retried = await t.api.post(retryUrl(automatic.id), undefined, { token: partner.token });
          assert.equal(retried.status, 201, retried.text);
          const attempt = retried.body.data;
          assert.equal(attempt.succeeded, false, url);
          assert.equal(attempt.status_code, null, url);
          assert.equal(attempt.error, error, `${behaviour ?? url}: ${retried.text}`);
          assert.equal(attempt.latency_ms, 0, `${behaviour ?? url}: no timing without an answer`);
          assert.doesNotMatch(retried.text, /ECONN|hang up|HPE_|Parse Error|SSH|getaddrinfo|ENOTFOUND/);
          const listed = await allDeliveries(t, partner.token, `event_id=${encodeURIComponent(event!.id)}`);
          const entry = listed.find((item) => item.id === attempt.id);
          assert.deepEqual(
            [entry.error, entry.latency_ms, entry.status_code],
            [error, 0, null],
            'the delivery log says the same',
          );
          assert.ok(
            logLinesWith(t, attempt.id).some((line) => cause.test(line)),
            `the server log keeps the cause ${cause} for ${behaviour ?? url}`,
          );
        }
        assert.equal(receiver.received.length, 1, 'only the automatic attempt reached the receiver');
      });

      it("answers 404 for another partner's attempt, an unknown attempt, or when no endpoint is set", async (test) => {
        const { t, sink } = ctx;
        const receiver = await startReceiver(test);
        const owner = await newPartner({ t, sink }, 'signed-in');
        const stranger = await newPartner({ t, sink }, 'signed-in');
        await setEndpoint(t.api, owner.token, receiver);
        await createAccount(t, owner.token);
        const [event] = await settled(t, owner.companyId);
        const [attempt] = await attemptsOf(t, event!.id);

        const foreign = await t.api.post(retryUrl(attempt!.id), undefined, { token: stranger.token });
        assert.equal(foreign.status, 404, foreign.text);
        assert.equal(foreign.body.error_code, 'NOT_FOUND');
        const unknown = await t.api.post(retryUrl('0190aaaa-0000-7000-8000-000000000000'), undefined, {
          token: owner.token,
        });
        assert.equal(unknown.status, 404, unknown.text);
        assert.equal(receiver.received.length, 1, 'nothing was resent');

        assert.equal((await t.api.delete(WEBHOOK, { token: owner.token })).status, 200);
        const noEndpoint = await t.api.post(retryUrl(attempt!.id), undefined, { token: owner.token });
        assert.equal(noEndpoint.status, 404, noEndpoint.text);
        assert.equal(receiver.received.length, 1);
      });
    });

    describe(`manual retry while the worker retries too (test clock) [${dialect.name}]`, {
      skip: dialect.skip,
      concurrency: false,
    }, () => {
      const clock = new TestClock();
      const ctx = useApp(dialect.name, { clock, env: { ...FAST_WEBHOOKS, WEBHOOK_RETRY_BASE_MS: '600000' } });
      const tenMinutes = 600_000 + 1000;

      it("numbers an event's attempts 1, 2, 3 … whether they were manual or automatic", async (test) => {
        const { t, sink } = ctx;
        const { partner, receiver } = await subscribedPartner(test, { t, sink });
        receiver.respond = () => 500;
        await createAccount(t, partner.token);
        const { event, attempt: first } = await firstAttempt(t, partner.companyId);
        const manual = await t.api.post(retryUrl(first!.id), undefined, { token: partner.token });
        assert.equal(manual.status, 201, manual.text);
        assert.equal(manual.body.data.attempt, 2);

        clock.advance(tenMinutes);
        await until(
          'the second automatic attempt',
          async () => (await attemptsOf(t, event!.id)).length === 3,
        );
        const log = await allDeliveries(t, partner.token, `event_id=${encodeURIComponent(event!.id)}`);
        assert.deepEqual(
          log.map((item) => [item.trigger, item.attempt]),
          [
            ['automatic', 3],
            ['manual', 2],
            ['automatic', 1],
          ],
        );
      });

      it('keeps an event delivered by a manual retry delivered when an automatic attempt in flight then fails', async (test) => {
        const { t, sink } = ctx;
        const { partner, receiver } = await subscribedPartner(test, { t, sink });
        receiver.respond = () => 500;
        await createAccount(t, partner.token);
        const { event, attempt: first } = await firstAttempt(t, partner.companyId);

        // The next automatic attempt hangs for a while and fails; the manual retry meanwhile succeeds.
        receiver.respond = () => {
          const automatic = receiver.received.length === 2;
          receiver.delayMs = automatic ? 700 : 0;
          return automatic ? 500 : 200;
        };
        clock.advance(tenMinutes);
        await receiver.waitFor((deliveries) => deliveries.length >= 2, 10_000);
        const manual = await t.api.post(retryUrl(first!.id), undefined, { token: partner.token });
        assert.equal(manual.status, 201, manual.text);
        assert.equal(manual.body.data.succeeded, true);
        assert.equal((await outboxEvents(t, partner.companyId))[0]!.status, 'delivered');

        await until('the in-flight automatic attempt to be recorded', async () => {
          const attempts = await attemptsOf(t, event!.id);
          return attempts.filter((attempt) => attempt.trigger === 'automatic').length === 2;
        });
        const [settledEvent] = await outboxEvents(t, partner.companyId);
        assert.equal(settledEvent!.status, 'delivered', 'a delivered event stays delivered');
        assert.ok(settledEvent!.delivered_at, 'and keeps its delivery time');
      });
    });
  }
});
