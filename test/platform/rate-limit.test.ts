import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, DIALECTS, startApp, type TestDatabase, useApp } from '../support/app.js';
import { retryAfterSeconds } from '../support/assertions.js';
import { BUSINESS_INFO, LOGIN, OPENAPI } from '../support/paths.js';
import { type RawResponse, randomLoopbackAddress, rawRequest } from '../support/raw-http.js';
import { redisProblem, TEST_REDIS_URL } from '../support/redis.js';

const redisSkip = await redisProblem();

function assertRateLimited(response: RawResponse): void {
  assert.equal(response.status, 429, response.text);
  const body = JSON.parse(response.text) as Record<string, unknown>;
  assert.equal(body['status'], 'error');
  assert.equal(body['error_code'], 'RATE_LIMITED');
  const seconds = retryAfterSeconds(response);
  assert.ok(seconds <= 60, `Retry-After ${seconds}`);
}

for (const dialect of DIALECTS) {
  describe(`per-IP rate limit, in memory [${dialect.name}]`, { skip: dialect.skip }, () => {
    const app = useApp(dialect.name, { env: { RATE_LIMIT_IP_PER_MINUTE: '5' } });

    it('answers the 6th request in a minute from one IP with 429 RATE_LIMITED and Retry-After', async () => {
      const ip = randomLoopbackAddress();
      for (let i = 1; i <= 5; i++) {
        const response = await rawRequest(`${app.t.url}${BUSINESS_INFO}`, { localAddress: ip });
        assert.equal(response.status, 401, `request ${i}: ${response.text}`);
      }
      assertRateLimited(await rawRequest(`${app.t.url}${BUSINESS_INFO}`, { localAddress: ip }));
      assertRateLimited(await rawRequest(`${app.t.url}${LOGIN}`, { method: 'POST', localAddress: ip }));
    });

    it('counts down in its headers on every answer, a 404 included', async () => {
      const ip = randomLoopbackAddress();
      const remaining: number[] = [];
      for (const path of [BUSINESS_INFO, '/no/such/path', BUSINESS_INFO]) {
        const response = await rawRequest(`${app.t.url}${path}`, { localAddress: ip });
        assert.equal(response.headers.get('x-ratelimit-limit'), '5', path);
        const reset = Number(response.headers.get('x-ratelimit-reset'));
        assert.ok(reset >= 1 && reset <= 60, `x-ratelimit-reset ${reset}`);
        remaining.push(Number(response.headers.get('x-ratelimit-remaining')));
      }
      assert.deepEqual(remaining, [4, 3, 2]);
    });

    it('keeps /healthz, /readyz (however written) and the OpenAPI document outside the budget', async () => {
      const ip = randomLoopbackAddress();
      for (let i = 0; i < 6; i++) await rawRequest(`${app.t.url}${BUSINESS_INFO}`, { localAddress: ip });
      for (let i = 0; i < 10; i++) {
        for (const path of ['/healthz', '/readyz', '/healthz/', '/readyz?probe=1', OPENAPI]) {
          const response = await rawRequest(`${app.t.url}${path}`, { localAddress: ip });
          assert.equal(response.status, 200, `${path}: ${response.text}`);
        }
      }
      assertRateLimited(await rawRequest(`${app.t.url}${BUSINESS_INFO}`, { localAddress: ip }));
    });

    it('gives every IP its own budget and ignores a spoofed X-Forwarded-For', async () => {
      const ip = randomLoopbackAddress();
      for (let i = 0; i < 5; i++) await rawRequest(`${app.t.url}${BUSINESS_INFO}`, { localAddress: ip });
      const spoofed = await rawRequest(`${app.t.url}${BUSINESS_INFO}`, {
        headers: { 'x-forwarded-for': '203.0.113.9' },
        localAddress: ip,
      });
      assertRateLimited(spoofed);
      const other = await rawRequest(`${app.t.url}${BUSINESS_INFO}`, {
        localAddress: randomLoopbackAddress(),
      });
      assert.equal(other.status, 401, other.text);
    });

    it('restores the budget once the minute has passed', async () => {
      const ip = randomLoopbackAddress();
      for (let i = 0; i < 6; i++) await rawRequest(`${app.t.url}${BUSINESS_INFO}`, { localAddress: ip });
      assertRateLimited(await rawRequest(`${app.t.url}${BUSINESS_INFO}`, { localAddress: ip }));
      app.t.clock.advance(60_000);
      const response = await rawRequest(`${app.t.url}${BUSINESS_INFO}`, { localAddress: ip });
      assert.equal(response.status, 401, response.text);
    });
  });

  describe(`per-IP rate limit shared through Redis by two instances [${dialect.name}]`, {
    skip: dialect.skip || (redisSkip ? `skipped: ${redisSkip}` : false),
  }, () => {
    let database: TestDatabase;
    let first: Awaited<ReturnType<typeof startApp>>;
    let second: Awaited<ReturnType<typeof startApp>>;
    before(async () => {
      database = await createTestDatabase(dialect.name);
      const env = { RATE_LIMIT_IP_PER_MINUTE: '5', REDIS_URL: TEST_REDIS_URL };
      first = await startApp(database, { env });
      second = await startApp(database, { env });
    });
    after(async () => {
      await first?.stop();
      await second?.stop();
      await database?.drop();
    });

    it('lets two instances share one budget per IP', async () => {
      // A fresh source address, so no earlier run's Redis counter applies.
      const ip = randomLoopbackAddress();
      for (let i = 0; i < 3; i++) {
        assert.equal((await rawRequest(`${first.url}${BUSINESS_INFO}`, { localAddress: ip })).status, 401);
      }
      for (let i = 0; i < 2; i++) {
        assert.equal((await rawRequest(`${second.url}${BUSINESS_INFO}`, { localAddress: ip })).status, 401);
      }
      assertRateLimited(await rawRequest(`${second.url}${BUSINESS_INFO}`, { localAddress: ip }));
      assertRateLimited(await rawRequest(`${first.url}${BUSINESS_INFO}`, { localAddress: ip }));
      const health = await rawRequest(`${second.url}/healthz`, { localAddress: ip });
      assert.equal(health.status, 200, 'the probes stay exempt');
      const otherIp = await rawRequest(`${first.url}${BUSINESS_INFO}`, {
        localAddress: randomLoopbackAddress(),
      });
      assert.equal(otherIp.status, 401, otherIp.text);
    });
  });
}
