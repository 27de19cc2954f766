import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  ApiError,
  type BaasClient,
  ConnectionError,
  type RepresentativeInput,
  type RetryEvent,
} from '../../sdk/src/index.js';
import { type AppContext, DIALECTS, useApp } from '../support/app.js';
import { customerBody, PNG_BYTES, representativeFields, STRONG_PASSWORD } from '../support/factories.js';
import { newPartner, type PartnerAt } from '../support/partners.js';
import { apiError, sdkClient } from './helpers.js';

type CustomerInput = Parameters<BaasClient['virtualAccounts']['create']>[0];

/**
 * What the proxy does with one request: answer it itself (`status` with an envelope and headers),
 * `drop` the connection without answering, `hang` (never answer), `forward` it to the app, or
 * `forward-then-drop` (the app does the work, the answer is lost on the way back).
 */
type Step =
  | { status: number; errorCode: string; headers?: Record<string, string> }
  | { status: number; html: string }
  | 'drop'
  | 'hang'
  | 'forward'
  | 'forward-then-drop';

interface Seen {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  contentType: string | undefined;
  body: Buffer;
  at: number;
  /** The app's answer, when the request was forwarded. */
  upstream?: { status: number; replayed: string | null };
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

/** A loopback proxy in front of the real app that misbehaves as a test's plan says, then forwards. */
class FlakyProxy {
  plan: Step[] = [];
  seen: Seen[] = [];
  private target = '';
  private readonly server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => void this.handle(request, response, Buffer.concat(chunks)));
  });

  async start(target: string): Promise<this> {
    this.target = target;
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  reset(plan: Step[]): void {
    this.plan = [...plan];
    this.seen = [];
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse, body: Buffer) {
    const seen: Seen = {
      method: request.method ?? '',
      path: request.url ?? '',
      idempotencyKey: request.headers['idempotency-key'] as string | undefined,
      contentType: request.headers['content-type'],
      body,
      at: Date.now(),
    };
    this.seen.push(seen);
    const step = this.plan.shift() ?? 'forward';
    if (step === 'drop') return request.socket.destroy();
    if (step === 'hang') return;
    if (typeof step === 'object' && 'html' in step) {
      response.writeHead(step.status, { 'content-type': 'text/html' });
      response.end(step.html);
      return;
    }
    if (typeof step === 'object') {
      response.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
      response.end(
        JSON.stringify({ status: 'error', message: 'from the proxy', error_code: step.errorCode }),
      );
      return;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (!HOP_BY_HOP.has(name) && typeof value === 'string') headers[name] = value;
    }
    const upstream = await fetch(`${this.target}${request.url}`, {
      method: request.method ?? 'GET',
      headers,
      ...(body.length > 0 ? { body } : {}),
    });
    const answer = Buffer.from(await upstream.arrayBuffer());
    seen.upstream = { status: upstream.status, replayed: upstream.headers.get('idempotent-replayed') };
    if (step === 'forward-then-drop') return request.socket.destroy();
    const outgoing: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name) && name !== 'content-encoding') outgoing[name] = value;
    });
    response.writeHead(upstream.status, outgoing);
    response.end(answer);
  }
}

const CREATE = '/baas/api/v1/services/virtual-account/create';
const unavailable: Step = { status: 503, errorCode: 'SERVICE_UNAVAILABLE' };
const inProgress: Step = { status: 409, errorCode: 'IDEMPOTENCY_IN_PROGRESS' };
const rateLimited = (retryAfter: string): Step => ({
  status: 429,
  errorCode: 'RATE_LIMITED',
  headers: { 'retry-after': retryAfter },
});

async function accountsWithEmail(suite: AppContext, email: string) {
  return suite.t.db
    .selectFrom('virtual_accounts')
    .select(['id'])
    .where('customer_email', '=', email)
    .execute();
}

for (const dialect of DIALECTS) {
  describe(`SDK retries and idempotency through a flaky proxy [${dialect.name}]`, {
    skip: dialect.skip,
  }, () => {
    const suite = useApp(dialect.name);
    const proxy = new FlakyProxy();
    let partner: PartnerAt<'sandbox'>;
    before(async () => {
      await proxy.start(suite.t.url);
      partner = await newPartner(suite, 'sandbox');
    });
    after(() => proxy.stop());
    beforeEach(() => proxy.reset([]));

    /** A client through the proxy, recording its retry events. */
    const client = (
      options: Parameters<typeof sdkClient>[2] = {},
      token: string | undefined = partner.sandboxKey,
    ) => {
      const retries: RetryEvent[] = [];
      const made = sdkClient(proxy.url, token, {
        retryBaseMs: 40,
        onRetry: (event) => retries.push(event),
        ...options,
      });
      return { ...made, retries };
    };

    it('POST create through 503, a dropped connection and 409 IDEMPOTENCY_IN_PROGRESS: one Idempotency-Key on all four attempts, one account, exponential backoff', async () => {
      proxy.reset([unavailable, 'drop', inProgress, 'forward']);
      const { client: sdk, retries } = client();
      const body = customerBody() as CustomerInput;
      const account = await sdk.virtualAccounts.create(body);
      assert.equal(account.customer.email, body.email);

      const attempts = proxy.seen.filter((seen) => seen.path === CREATE);
      assert.equal(attempts.length, 4);
      const key = attempts[0]!.idempotencyKey;
      assert.match(String(key), /^[0-9a-f-]{36}$/);
      assert.ok(
        attempts.every((seen) => seen.idempotencyKey === key),
        'the same key on every attempt',
      );
      assert.ok(
        attempts.every((seen) => seen.body.equals(attempts[0]!.body)),
        'the same body on every attempt',
      );
      assert.deepEqual(JSON.parse(attempts[0]!.body.toString()), body);
      assert.equal((await accountsWithEmail(suite, body.email)).length, 1);

      assert.deepEqual(
        retries.map((retry) => [retry.attempt, retry.status, retry.errorCode, retry.idempotencyKey]),
        [
          [1, 503, undefined, key],
          [2, undefined, undefined, key],
          [3, 409, 'IDEMPOTENCY_IN_PROGRESS', key],
        ],
      );
      assert.ok(retries[1]!.error instanceof Error, 'the dropped connection is reported as an error');
      retries.forEach((retry, index) => {
        const step = 40 * 2 ** index;
        assert.ok(
          retry.delayMs >= step / 2 && retry.delayMs <= step,
          `retry ${index + 1} waits ${retry.delayMs} ms, within [${step / 2}, ${step}]`,
        );
        const waited = attempts[index + 1]!.at - attempts[index]!.at;
        assert.ok(waited >= retry.delayMs - 2, `attempt ${index + 2} came ${waited} ms after the one before`);
      });
    });

    it('a lost answer: the app created the account, the retry with the same key is replayed (Idempotent-Replayed), still one account', async () => {
      proxy.reset(['forward-then-drop', 'forward']);
      const { client: sdk } = client();
      const body = customerBody() as CustomerInput;
      const account = await sdk.virtualAccounts.create(body);
      const [first, second] = proxy.seen;
      assert.equal(proxy.seen.length, 2);
      assert.equal(first!.upstream?.status, 201);
      assert.equal(first!.upstream?.replayed, null);
      assert.equal(second!.upstream?.status, 201);
      assert.equal(second!.upstream?.replayed, 'true');
      assert.equal(second!.idempotencyKey, first!.idempotencyKey);
      const rows = await accountsWithEmail(suite, body.email);
      assert.deepEqual(
        rows.map((row) => row.id),
        [account.id],
      );
    });

    it("uses the caller's idempotencyKey on every attempt; calling again with it replays the same account", async () => {
      proxy.reset([unavailable, 'forward']);
      const { client: sdk } = client();
      const body = customerBody() as CustomerInput;
      const key = `order-${Date.now()}`;
      const account = await sdk.virtualAccounts.create(body, { idempotencyKey: key });
      const again = await sdk.virtualAccounts.create(body, { idempotencyKey: key });
      assert.deepEqual(again, account);
      assert.deepEqual(
        proxy.seen.map((seen) => seen.idempotencyKey),
        [key, key, key],
      );
      assert.equal(proxy.seen[2]!.upstream?.replayed, 'true');
      assert.equal((await accountsWithEmail(suite, body.email)).length, 1);
    });

    it('is bounded: maxRetries + 1 attempts, then the last 503 as ApiError, or a ConnectionError after dropped connections', async () => {
      proxy.reset([unavailable, unavailable, unavailable, unavailable, unavailable]);
      const { client: sdk } = client({ maxRetries: 2 });
      const body = customerBody() as CustomerInput;
      const error = await apiError(sdk.virtualAccounts.create(body), 503, 'SERVICE_UNAVAILABLE');
      assert.equal(error.message, 'from the proxy');
      assert.equal(proxy.seen.length, 3);
      assert.equal(new Set(proxy.seen.map((seen) => seen.idempotencyKey)).size, 1);

      proxy.reset(['drop', 'drop', 'drop', 'drop', 'drop']);
      await assert.rejects(sdk.virtualAccounts.create(body), (failure: unknown) => {
        assert.ok(failure instanceof ConnectionError);
        assert.equal(failure.attempts, 3);
        assert.equal(failure.method, 'POST');
        return true;
      });
      assert.equal(proxy.seen.length, 3);
      assert.equal((await accountsWithEmail(suite, body.email)).length, 0);

      proxy.reset([unavailable]);
      const { client: once } = client({ maxRetries: 0 });
      await apiError(once.virtualAccounts.create(body), 503, 'SERVICE_UNAVAILABLE');
      assert.equal(proxy.seen.length, 1);
    });

    it('GETs are retried on 503, dropped connections and time-outs', async () => {
      const made = await newPartner(suite, 'sandbox');
      const account = await sdkClient(suite.t.url, made.sandboxKey).client.virtualAccounts.create(
        customerBody() as CustomerInput,
      );
      proxy.reset([unavailable, 'drop', 'hang', 'forward']);
      const { client: sdk, retries } = client({ timeoutMs: 1000, maxRetries: 5 }, made.sandboxKey);
      assert.deepEqual(await sdk.virtualAccounts.get(account.account_number), account);
      assert.ok(proxy.seen.length >= 4, 'a 503, a dropped connection and a time-out, then the answer');
      assert.ok(proxy.seen.every((seen) => seen.method === 'GET' && seen.idempotencyKey === undefined));
      assert.equal((retries[2]!.error as Error).name, 'TimeoutError');
    });

    it('POSTs without an Idempotency-Key (login, register) are not retried on 503 or a dropped connection', async () => {
      const { client: sdk } = client({}, undefined);
      proxy.reset([unavailable]);
      await apiError(
        sdk.onboarding.login({ email: partner.email, password: STRONG_PASSWORD }),
        503,
        'SERVICE_UNAVAILABLE',
      );
      assert.equal(proxy.seen.length, 1);
      assert.equal(proxy.seen[0]!.idempotencyKey, undefined);

      proxy.reset(['drop', 'forward']);
      await assert.rejects(
        sdk.onboarding.login({ email: partner.email, password: STRONG_PASSWORD }),
        (error: unknown) => error instanceof ConnectionError && error.attempts === 1,
      );
      assert.equal(proxy.seen.length, 1);

      // A gateway's own error page is still an ApiError, without an error code.
      proxy.reset([{ status: 502, html: '<html>Bad Gateway</html>' }, 'forward']);
      await assert.rejects(
        sdk.onboarding.login({ email: partner.email, password: STRONG_PASSWORD }),
        (error: unknown) => {
          assert.ok(error instanceof ApiError);
          assert.equal(error.status, 502);
          assert.equal(error.errorCode, null);
          assert.equal(error.body, '<html>Bad Gateway</html>');
          assert.match(error.message, /HTTP 502/);
          return true;
        },
      );
      assert.equal(proxy.seen.length, 1);
    });

    it('429: waits Retry-After seconds and then retries any POST, re-sending the same body (JSON and multipart)', async () => {
      const { client: sdk, retries } = client({}, undefined);
      proxy.reset([rateLimited('1'), 'forward']);
      const started = Date.now();
      const session = await sdk.onboarding.login({ email: partner.email, password: STRONG_PASSWORD });
      assert.ok(Date.now() - started >= 1000, 'waited the second Retry-After asked for');
      assert.equal(session.environment, 'sandbox');
      assert.equal(retries[0]!.delayMs, 1000);
      assert.equal(proxy.seen.length, 2);
      assert.ok(proxy.seen[1]!.body.equals(proxy.seen[0]!.body));
      assert.equal(proxy.seen[0]!.idempotencyKey, undefined);

      proxy.reset([rateLimited('0'), 'forward']);
      const saved = await sdk.onboarding.saveRepresentative(
        representativeFields() as unknown as RepresentativeInput,
        new Blob([PNG_BYTES], { type: 'image/png' }),
      );
      assert.equal(saved.kyc.ok, true);
      assert.equal(proxy.seen.length, 2);
      assert.match(String(proxy.seen[0]!.contentType), /^multipart\/form-data; boundary=/);
      assert.ok(proxy.seen[0]!.body.length > PNG_BYTES.length);
      assert.ok(proxy.seen[1]!.body.equals(proxy.seen[0]!.body), 'the multipart body is sent again whole');
      assert.equal(proxy.seen[1]!.upstream?.status, 201);
    });

    it('does not wait for a Retry-After beyond maxRetryAfterMs, nor retry a 429 OTP_ATTEMPTS_EXCEEDED or a 409 other than IDEMPOTENCY_IN_PROGRESS', async () => {
      const { client: sdk } = client();
      proxy.reset([rateLimited('3600')]);
      const started = Date.now();
      const limited = await apiError(sdk.virtualAccounts.list().toArray(), 429, 'RATE_LIMITED');
      assert.ok(Date.now() - started < 1000);
      assert.equal(limited.headers.get('retry-after'), '3600');
      assert.equal(proxy.seen.length, 1);

      proxy.reset([{ status: 429, errorCode: 'OTP_ATTEMPTS_EXCEEDED' }]);
      await apiError(
        sdk.onboarding.verifyOtp({ email: partner.email, otp: '000000' }),
        429,
        'OTP_ATTEMPTS_EXCEEDED',
      );
      assert.equal(proxy.seen.length, 1);

      proxy.reset([{ status: 409, errorCode: 'ACCOUNT_CLOSED' }]);
      await apiError(sdk.virtualAccounts.reactivate('0123456789'), 409, 'ACCOUNT_CLOSED');
      assert.equal(proxy.seen.length, 1);
    });

    it("an abort by the caller's signal is thrown as it is, and ends the retries", async () => {
      proxy.reset([unavailable, unavailable, unavailable, unavailable]);
      const { client: sdk } = client({ retryBaseMs: 2500 });
      const controller = new AbortController();
      const pending = sdk.virtualAccounts.list({}, { signal: controller.signal }).toArray();
      while (proxy.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      await new Promise((resolve) => setTimeout(resolve, 50)); // now waiting to retry (1250 ms or more)
      controller.abort();
      await assert.rejects(pending, (error: unknown) => (error as Error).name === 'AbortError');
      assert.equal(proxy.seen.length, 1);
    });
  });
}
