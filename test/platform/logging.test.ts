import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { type AccessEntry, accessLog, createLogger } from '../../src/platform/logger.js';
import { DIALECTS, useApp } from '../support/app.js';
import { until } from '../support/assertions.js';
import { randomPassword, registration, wrongCode } from '../support/factories.js';
import type { ApiResponse } from '../support/http.js';
import { BUSINESS_INFO, LOGIN, LOGOUT, REGISTER, RESEND_OTP, VERIFY_OTP } from '../support/paths.js';
import { freePort } from '../support/smtp-sink.js';

/** The code as a token of its own: six digits may occur inside ids and timestamps by chance. */
const standalone = (digits: string) => new RegExp(`(?<![0-9A-Za-z])${digits}(?![0-9A-Za-z])`);

describe('the access line', () => {
  const capture = (level: string) => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, callback) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        callback();
      },
    });
    return { lines, logger: createLogger(level, stream) };
  };
  const entries: AccessEntry[] = [
    { reqId: 'req-1', method: 'GET', url: '/healthz', status: 200, ms: 0.4, ip: '127.0.0.1' },
    {
      reqId: '3f1c2a9e-0d3b-4e55-9a51-0c4f3b2a1d9e',
      method: 'POST',
      url: '/baas/api/v1/x?q="quoted"&b=back\\slash&u=\u00e9\u2028',
      status: 422,
      ms: 12.3,
      error_code: 'VALIDATION_FAILED',
      ip: '::ffff:10.0.0.7',
    },
    { reqId: 'r', method: 'DELETE', url: '/', status: 500, ms: 1500, error_code: undefined, ip: '"odd"' },
  ];

  it("is pino's own line for the same fields: same keys in the same order, same values", async () => {
    const built = capture('info');
    const viaPino = capture('info');
    const write = accessLog(built.logger);
    const before = Date.now();
    for (const entry of entries) {
      write(entry);
      viaPino.logger.info(entry, 'request');
    }
    const after = Date.now();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(built.lines.length, entries.length);
    for (const [index, line] of built.lines.entries()) {
      const ours = JSON.parse(line) as Record<string, unknown>;
      const theirs = JSON.parse(viaPino.lines[index]!) as Record<string, unknown>;
      assert.deepEqual(Object.keys(ours), Object.keys(theirs), line);
      assert.match(String(ours['time']), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const time = Date.parse(String(ours['time']));
      assert.ok(time >= before && time <= after, `${ours['time']} is not the time it was written`);
      assert.deepEqual({ ...ours, time: null }, { ...theirs, time: null });
    }
  });

  it('is not written while the level is above info', async () => {
    const { lines, logger } = capture('warn');
    accessLog(logger)(entries[0]!);
    logger.level = 'info';
    accessLog(logger)(entries[1]!);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      lines.map((line) => (JSON.parse(line) as { reqId: string }).reqId),
      [entries[1]!.reqId],
    );
  });
});

const METRICS_TOKEN = 'metrics-token-0123456789abcdefghijklmnop';

for (const dialect of DIALECTS) {
  describe(`logs [${dialect.name}]`, { skip: dialect.skip }, () => {
    const ctx = useApp(dialect.name);

    it('never contain the password, the OTP or the session token, and log one JSON line per request with its id', async () => {
      const password = `Pw-${randomPassword(20)}`;
      const wrongPassword = `Wrong-${randomPassword(20)}`;
      const body = registration({ password, password_confirmation: password });
      const responses: ApiResponse[] = [];
      const call = async (promise: Promise<ApiResponse>) => {
        const response = await promise;
        responses.push(response);
        return response;
      };

      assert.equal((await call(ctx.t.api.post(REGISTER, body))).status, 201);
      const firstOtp = await ctx.sink.otpFor(body.email);
      await call(ctx.t.api.post(RESEND_OTP, { email: body.email }));
      const otp = await ctx.sink.otpFor(body.email, 2);
      await call(ctx.t.api.post(VERIFY_OTP, { email: body.email, otp: wrongCode(otp) }));
      assert.equal((await call(ctx.t.api.post(VERIFY_OTP, { email: body.email, otp }))).status, 200);
      await call(ctx.t.api.post(LOGIN, { email: body.email, password: wrongPassword }));
      await call(ctx.t.api.post(LOGIN, { email: 'nobody-here@example.com', password }));
      const login = await call(
        ctx.t.api.post(
          LOGIN,
          { email: body.email, password },
          { headers: { 'x-request-id': 'client-trace-0042' } },
        ),
      );
      assert.equal(login.status, 200);
      const token: string = login.body.data.token;
      assert.equal((await call(ctx.t.api.get(BUSINESS_INFO, { token }))).status, 200);
      await call(ctx.t.api.get(BUSINESS_INFO, { token: `${token}x` }));
      assert.equal((await call(ctx.t.api.post(LOGOUT, undefined, { token }))).status, 200);
      await call(ctx.t.api.get(BUSINESS_INFO, { token }));

      const ids = responses.map((r) => String(r.headers.get('x-request-id')));
      assert.ok(ids.includes('client-trace-0042'));
      const requestLines = () =>
        ctx.t.logs
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .filter((l) => l['msg'] === 'request');
      // The access line is written after the response is sent.
      await until('an access log line for every request', () =>
        ids.every((id) => requestLines().some((line) => line['reqId'] === id)),
      );
      const lines = requestLines();
      for (const [index, id] of ids.entries()) {
        const matching = lines.filter((line) => line['reqId'] === id);
        assert.equal(matching.length, 1, `request ${index} (${id}) has ${matching.length} access lines`);
        assert.equal(matching[0]!['status'], responses[index]!.status);
      }

      for (const line of ctx.t.logs) {
        assert.doesNotThrow(() => JSON.parse(line), `not JSON: ${line}`);
        assert.ok(!line.includes(password), `password in: ${line}`);
        assert.ok(!line.includes(wrongPassword), `wrong password in: ${line}`);
        assert.ok(!line.includes(token), `token in: ${line}`);
        assert.doesNotMatch(line, standalone(otp), `OTP in: ${line}`);
        assert.doesNotMatch(line, standalone(firstOtp), `first OTP in: ${line}`);
      }
    });
  });

  describe(`request-scoped log lines [${dialect.name}]`, { skip: dialect.skip }, async () => {
    // A Redis nobody listens on: the rate limit fails open and says so through request.log.
    const ctx = useApp(dialect.name, {
      env: {
        RATE_LIMIT_IP_PER_MINUTE: '5',
        REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
        METRICS_TOKEN,
      },
    });

    it("carry the request's id, like its access line; the store's outage is told once a minute", async () => {
      const warningOf = async (response: { headers: Headers; status: number; text: string }) => {
        assert.equal(response.status, 401, response.text);
        const id = String(response.headers.get('x-request-id'));
        const lines = () =>
          ctx.t.logs
            .map((line) => JSON.parse(line) as Record<string, unknown>)
            .filter((l) => l['reqId'] === id);
        await until(`the access line of ${id}`, () => lines().some((line) => line['msg'] === 'request'));
        return lines().find((line) => line['msg'] === 'rate limit store unavailable; request allowed');
      };
      const first = await warningOf(
        await ctx.t.api.get(BUSINESS_INFO, { headers: { 'x-request-id': 'client-trace-0099' } }),
      );
      assert.ok(first, `no warning with the first request's id: ${ctx.t.logs.join('\n')}`);
      assert.equal(first['level'], 'warn');
      assert.equal(first['service'], 'baas-partner-api');
      assert.equal(first['reqId'], 'client-trace-0099');
      // Within the minute: allowed, not logged again.
      for (let index = 0; index < 3; index++) {
        assert.equal(
          await warningOf(await ctx.t.api.get(BUSINESS_INFO)),
          undefined,
          'warned again within the minute',
        );
      }
      ctx.t.clock.advance(61_000);
      const next = await warningOf(await ctx.t.api.get(BUSINESS_INFO));
      assert.ok(next, 'no warning a minute later');
      assert.equal(next['unchecked_requests'], 4, 'the three quiet requests and this one');
      // Every request let through is counted, logged or not (the probes and /metrics are exempt).
      const metrics = await fetch(`${ctx.t.url}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      const text = await metrics.text();
      assert.equal(metrics.status, 200, text);
      assert.match(text, /^baas_rate_limit_unchecked_total 5$/m);
    });
  });
}
