import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isValidNuban } from '../../src/modules/virtual-accounts/nuban.js';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { createTestDatabase, DIALECTS, startApp, type TestDatabase } from '../support/app.js';
import { assertError, envelopeOf, until } from '../support/assertions.js';
import { customerBody } from '../support/factories.js';
import type { Api } from '../support/http.js';
import { createAccount, createApiKey, newPartner, type PartnerAt, signIn } from '../support/partners.js';
import { BUSINESS_INFO, CREATE_ACCOUNT, creditUrl, LOGIN, LOGOUT, WEBHOOK } from '../support/paths.js';
import { randomLoopbackAddress, rawRequest } from '../support/raw-http.js';
import { clearIpCounter, redisProblem, TEST_REDIS_URL } from '../support/redis.js';
import { SmtpSink } from '../support/smtp-sink.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * docs/architecture.md, "Several instances": sessions, the login lock, account-number allocation and
 * webhook leases live in PostgreSQL and the per-IP budget in Redis, so two instances behave as one
 * service.
 */

type Instance = Awaited<ReturnType<typeof startApp>>;

const IP_BUDGET = 10;
const redisSkip = await redisProblem();

for (const dialect of DIALECTS) {
  const skip =
    dialect.name === 'sqlite'
      ? 'skipped: several instances need PostgreSQL (SQLite serves one process, docs/architecture.md, "Several instances")'
      : dialect.skip || (redisSkip ? `skipped: ${redisSkip}` : false);

  describe(`two instances on one PostgreSQL and one Redis [${dialect.name}]`, { skip }, () => {
    let database: TestDatabase;
    let handle: DatabaseHandle;
    let sink: SmtpSink;
    let receiver: WebhookReceiver;
    /** Per-IP limit off: sessions, allocation, login lock, webhooks. */
    let one: Instance;
    let two: Instance;
    /** The same database and Redis with a small per-IP budget. */
    let limitedOne: Instance;
    let limitedTwo: Instance;
    let partner: PartnerAt<'signed-in'>;
    let key: string;

    before(async () => {
      database = await createTestDatabase('postgres');
      sink = await new SmtpSink().start();
      receiver = await new WebhookReceiver().start();
      const shared = {
        SMTP_URL: sink.url,
        REDIS_URL: TEST_REDIS_URL,
        LOG_LEVEL: 'warn',
        WEBHOOK_POLL_MS: '20',
        WEBHOOK_RETRY_BASE_MS: '100',
        WEBHOOK_TIMEOUT_MS: '2000',
      };
      one = await startApp(database, { env: { ...shared, RATE_LIMIT_IP_PER_MINUTE: '0' } });
      [two, limitedOne, limitedTwo] = await Promise.all([
        startApp(database, { env: { ...shared, RATE_LIMIT_IP_PER_MINUTE: '0' } }),
        startApp(database, { env: { ...shared, RATE_LIMIT_IP_PER_MINUTE: String(IP_BUDGET) } }),
        startApp(database, { env: { ...shared, RATE_LIMIT_IP_PER_MINUTE: String(IP_BUDGET) } }),
      ]);
      handle = database.open();
      partner = await newPartner({ t: one, sink }, 'signed-in');
      key = (await createApiKey(two, partner.token, 'sandbox')).key;
    });
    after(async () => {
      await Promise.all([one?.stop(), two?.stop(), limitedOne?.stop(), limitedTwo?.stop()]);
      await handle?.close();
      await receiver?.stop();
      await sink?.stop();
      await database?.drop();
    });

    const apis = (): Api[] => [one.api, two.api];

    it('accepts a session from a login on instance 1 on instance 2, and a logout on 2 revokes it on 1', async () => {
      const token = await signIn(one, partner);
      for (const api of apis()) {
        const profile = await api.get(BUSINESS_INFO, { token });
        assert.equal(profile.status, 200, profile.text);
        assert.equal(profile.body.data.company_id, partner.companyId);
      }
      const logout = await two.api.post(LOGOUT, undefined, { token });
      assert.equal(logout.status, 200, logout.text);
      for (const api of apis()) {
        assertError(await api.get(BUSINESS_INFO, { token }), 401, 'UNAUTHENTICATED');
      }
      const other = await two.api.get(BUSINESS_INFO, { token: partner.token });
      assert.equal(other.status, 200, 'only the logged-out session is revoked');
    });

    it('allocates 100 distinct valid NUBANs to 100 concurrent creates split across both instances', async () => {
      const responses = await Promise.all(
        Array.from({ length: 100 }, (_, index) =>
          apis()[index % 2]!.post(CREATE_ACCOUNT, customerBody({ email: `split-${index}@example.com` }), {
            token: key,
          }),
        ),
      );
      assert.deepEqual(
        responses.filter((response) => response.status !== 201).map((response) => response.text),
        [],
      );
      const numbers = responses.map((response) => response.body.data.account_number as string);
      assert.equal(new Set(numbers).size, 100, 'two creates got the same number');
      for (const number of numbers)
        assert.ok(isValidNuban('999999', number), `${number} is not a valid NUBAN`);
      const rows = await handle.db
        .selectFrom('virtual_accounts')
        .select('account_number')
        .where('partner_id', '=', partner.companyId)
        .where('customer_email', 'like', 'split-%')
        .execute();
      assert.deepEqual(rows.map((row) => row.account_number).sort(), [...numbers].sort());
    });

    it('locks an e-mail after 10 failed logins spread over both instances: the 11th is 429 on either', async () => {
      const victim = await newPartner({ t: two, sink }, 'signed-in');
      for (let attempt = 1; attempt <= 10; attempt++) {
        const response = await apis()[attempt % 2]!.post(LOGIN, {
          email: victim.email,
          password: `wrong-password-${attempt}`,
        });
        assertError(response, 401, 'INVALID_CREDENTIALS', { what: `failed login ${attempt}` });
      }
      for (const api of apis()) {
        const locked = await api.post(LOGIN, { email: victim.email, password: 'wrong-password-11' });
        assertError(locked, 429, 'RATE_LIMITED');
        assert.match(locked.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
        const right = await api.post(LOGIN, { email: victim.email, password: victim.password });
        assertError(right, 429, 'RATE_LIMITED', { what: 'even the right password while locked' });
      }
    });

    it(`shares the per-IP budget of ${IP_BUDGET} a minute through Redis: the next request is 429 on either instance`, async () => {
      const ip = randomLoopbackAddress();
      await clearIpCounter(ip);
      const instances = [limitedOne, limitedTwo];
      const remaining: number[] = [];
      for (let i = 0; i < IP_BUDGET; i++) {
        const response = await rawRequest(`${instances[i % 2]!.url}${BUSINESS_INFO}`, {
          localAddress: ip,
        });
        assert.equal(response.status, 401, `request ${i + 1} is within the budget: ${response.text}`);
        remaining.push(Number(response.headers.get('x-ratelimit-remaining')));
      }
      assert.deepEqual(
        remaining,
        Array.from({ length: IP_BUDGET }, (_, i) => IP_BUDGET - 1 - i),
        'both instances count into one budget',
      );
      for (const instance of instances) {
        const response = await rawRequest(`${instance.url}${BUSINESS_INFO}`, { localAddress: ip });
        assert.equal(response.status, 429, response.text);
        assert.equal(envelopeOf(response.text).error_code, 'RATE_LIMITED');
        assert.match(String(response.headers.get('retry-after')), /^[1-9][0-9]*$/);
      }
      const otherIp = randomLoopbackAddress();
      await clearIpCounter(otherIp);
      const other = await rawRequest(`${limitedTwo.url}${BUSINESS_INFO}`, { localAddress: otherIp });
      assert.equal(other.status, 401, 'another IP has its own budget');
      await clearIpCounter(ip);
      await clearIpCounter(otherIp);
    });

    it('delivers each webhook exactly once while four instances run the worker on one outbox', async () => {
      const owner = await newPartner({ t: one, sink }, 'signed-in');
      const ownerKey = (await createApiKey(one, owner.token, 'sandbox')).key;
      const endpoint = await two.api.put(WEBHOOK, { url: receiver.url }, { token: ownerKey });
      assert.equal(endpoint.status, 201, endpoint.text);
      receiver.secret = endpoint.body.data.secret;
      receiver.respond = () => 200;
      const created = await Promise.all(
        Array.from({ length: 20 }, (_, index) => createAccount({ api: apis()[index % 2]! }, ownerKey)),
      );
      await Promise.all(
        created.map((account, index) =>
          apis()[(index + 1) % 2]!.post(
            creditUrl(account.account_number),
            { amount: 10 },
            {
              token: ownerKey,
            },
          ),
        ),
      );
      const events = await until(
        'every event of the partner to be delivered',
        async () => {
          const rows = await handle.db
            .selectFrom('outbox_events')
            .select(['id', 'status'])
            .where('partner_id', '=', owner.companyId)
            .where('environment', '=', 'sandbox')
            .execute();
          return rows.length === 40 && rows.every((row) => row.status === 'delivered') && rows;
        },
        30_000,
        100,
      );
      // Late duplicates would arrive within a poll or two; give them the chance before counting.
      const settledAt = receiver.received.length;
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(receiver.received.length, settledAt, 'deliveries kept arriving after every event settled');

      const counts = new Map<string, number>();
      for (const delivery of receiver.received) {
        assert.ok(delivery.verified, `delivery ${delivery.id} does not verify`);
        counts.set(delivery.id, (counts.get(delivery.id) ?? 0) + 1);
      }
      assert.deepEqual(
        [...counts].filter(([, count]) => count !== 1),
        [],
        'webhook-ids received more than once',
      );
      assert.deepEqual([...counts.keys()].sort(), events.map((event) => event.id).sort());
      const attempts = await handle.db
        .selectFrom('webhook_attempts')
        .select(['event_id'])
        .where('partner_id', '=', owner.companyId)
        .execute();
      assert.equal(attempts.length, 40, 'one attempt per event');
    });
  });
}
