import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AppContext, DIALECTS, useApp } from '../support/app.js';
import { assertError, until } from '../support/assertions.js';
import { notification, notify } from '../support/bank.js';
import { createAccount, newPartner } from '../support/partners.js';
import {
  API_PREFIX,
  accountUrl,
  creditUrl,
  TRANSFERS,
  transferUrl,
  VIRTUAL_ACCOUNTS,
} from '../support/paths.js';
import { FAST_WEBHOOKS, setEndpoint, startReceiver } from '../support/webhooks.js';

/*
 * GET /metrics (issue 32, "Operations a bank's SRE expects"; docs/operations.md, "Metrics"):
 * Prometheus text for a scraper holding METRICS_TOKEN, off without it; HTTP series labelled by route
 * template, never by a value from the path.
 */

const TOKEN = 'metrics-token-0123456789abcdefghijklmnop';

async function scrape(suite: AppContext, authorization = `Bearer ${TOKEN}`) {
  const response = await fetch(`${suite.t.url}/metrics`, { headers: { authorization } });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = (match[2] ?? '').split(',');
    if (wanted.every((pair) => present.includes(pair))) return Number(match[3]);
  }
  return undefined;
}

for (const dialect of DIALECTS) {
  describe(`GET /metrics [${dialect.name}]`, { skip: dialect.skip }, () => {
    describe('without METRICS_TOKEN', () => {
      const suite = useApp(dialect.name);

      it('answers 404 NOT_FOUND, as an unknown path', async () => {
        const response = await suite.t.api.get('/metrics', { token: TOKEN });
        assertError(response, 404, 'NOT_FOUND');
      });
    });

    describe('with METRICS_TOKEN', () => {
      const suite = useApp(dialect.name, {
        env: { METRICS_TOKEN: TOKEN, ...FAST_WEBHOOKS, TRANSFER_POLL_MS: '50', TRANSFER_REQUERY_MS: '200' },
      });

      it('answers 401 UNAUTHENTICATED without the token or with another one', async () => {
        for (const authorization of ['', 'Bearer wrong', `Bearer ${TOKEN}x`, TOKEN]) {
          const response = await fetch(`${suite.t.url}/metrics`, {
            headers: authorization ? { authorization } : {},
          });
          const body = (await response.json()) as { error_code?: string; status?: string };
          assert.equal(response.status, 401, authorization);
          assert.equal(body.status, 'error');
          assert.equal(body.error_code, 'UNAUTHENTICATED');
        }
      });

      it('exposes the HTTP, pool, event-loop and queue series in Prometheus text', async () => {
        assert.equal((await suite.t.api.get('/livez')).status, 200);
        const { status, type, text } = await scrape(suite);
        assert.equal(status, 200, text);
        assert.match(type ?? '', /^text\/plain; version=0\.0\.4/);
        assert.ok(
          (sample(text, 'http_server_request_duration_seconds_count', {
            http_request_method: 'GET',
            http_route: '/livez',
            http_response_status_class: '2xx',
          }) ?? 0) >= 1,
          text,
        );
        // The scrape itself is in flight while the text is made.
        assert.ok((sample(text, 'http_server_active_requests') ?? 0) >= 1);
        assert.ok(sample(text, 'nodejs_eventloop_lag_p99_seconds') !== undefined);
        assert.ok(sample(text, 'db_client_connection_max') !== undefined);
        assert.ok(
          sample(text, 'db_client_connection_count', { db_client_connection_state: 'used' }) !== undefined,
        );
        if (dialect.name === 'postgres')
          assert.ok(sample(text, 'db_client_connection_pending_requests') !== undefined);
        for (const worker of ['webhooks', 'mail', 'transfers']) {
          assert.ok(sample(text, 'baas_outbox_backlog', { worker }) !== undefined, worker);
          assert.ok(sample(text, 'baas_outbox_oldest_due_age_seconds', { worker }) !== undefined, worker);
        }
      });

      it('labels requests by route template, never by an id, account number or e-mail in the path', async () => {
        const partner = await newPartner(suite, 'sandbox');
        const account = await createAccount(suite.t, partner.sandboxKey);
        const number = String(account.account_number);
        assert.equal((await suite.t.api.get(accountUrl(number), { token: partner.sandboxKey })).status, 200);
        const unknownNumber = number === '0123456789' ? '9876543210' : '0123456789';
        assert.equal(
          (await suite.t.api.get(accountUrl(unknownNumber), { token: partner.sandboxKey })).status,
          404,
        );
        const email = `probe-${partner.companyId}@metrics.example`;
        assert.equal((await suite.t.api.get(`${API_PREFIX}/nowhere/${email}`)).status, 404);
        assert.equal((await suite.t.api.get(`/nowhere-${partner.companyId}x/${number}`)).status, 404);

        const { text } = await scrape(suite);
        for (const value of [number, unknownNumber, email, `nowhere-${partner.companyId}x`, partner.email]) {
          assert.ok(!text.includes(value), `the exposition names ${value}`);
        }
        const route = `${VIRTUAL_ACCOUNTS}/:account_number`;
        assert.ok(
          (sample(text, 'http_server_request_duration_seconds_count', {
            http_route: route,
            http_response_status_class: '2xx',
          }) ?? 0) >= 1,
          `no 2xx sample for ${route}`,
        );
        assert.ok(
          (sample(text, 'http_server_request_duration_seconds_count', {
            http_route: route,
            http_response_status_class: '4xx',
          }) ?? 0) >= 1,
          `no 4xx sample for ${route}`,
        );
        assert.ok(
          (sample(text, 'http_server_request_duration_seconds_count', {
            http_route: '_unmatched',
            http_response_status_class: '4xx',
          }) ?? 0) >= 2,
        );
      });

      it('counts credit notifications and webhook deliveries by outcome', async (test) => {
        const before = (await scrape(suite)).text;
        const credited = () =>
          sample(before, 'baas_credit_notifications_total', { outcome: 'credited' }) ?? 0;
        const duplicate = () =>
          sample(before, 'baas_credit_notifications_total', { outcome: 'duplicate' }) ?? 0;
        const refused = () => sample(before, 'baas_credit_notifications_total', { outcome: 'refused' }) ?? 0;
        const delivered = () =>
          sample(before, 'baas_webhook_deliveries_total', { outcome: 'delivered' }) ?? 0;
        const [credited0, duplicate0, refused0, delivered0] = [
          credited(),
          duplicate(),
          refused(),
          delivered(),
        ];

        // Live endpoints must be https: the delivery is a sandbox event's, the credit a live account's.
        const receiver = await startReceiver(test);
        const partner = await newPartner(suite, 'live');
        await setEndpoint(suite.t.api, partner.token, receiver);
        await createAccount(suite.t, partner.sandboxKey);
        const account = await createAccount(suite.t, partner.liveKey);
        const body = notification(String(account.account_number));
        const options = { nowMs: suite.t.clock.now() };
        for (const expected of ['credited', 'duplicate']) {
          const answer = await notify(suite.t.api, body, options);
          assert.equal(answer.status, 200, answer.text);
          assert.equal(answer.body.data.outcome, expected);
        }
        const closed = await notify(suite.t.api, notification('0000000000'), options);
        assert.equal(closed.status, 404, closed.text);
        await until('the sandbox webhook delivered', () => receiver.received.length > 0);

        const after = await until('the delivery counted', async () => {
          const text = (await scrape(suite)).text;
          return (
            (sample(text, 'baas_webhook_deliveries_total', { outcome: 'delivered' }) ?? 0) > delivered0 &&
            text
          );
        });
        assert.equal(
          sample(after, 'baas_credit_notifications_total', { outcome: 'credited' }),
          credited0 + 1,
        );
        assert.equal(
          sample(after, 'baas_credit_notifications_total', { outcome: 'duplicate' }),
          duplicate0 + 1,
        );
        assert.equal(sample(after, 'baas_credit_notifications_total', { outcome: 'refused' }), refused0 + 1);
        assert.ok(!after.includes(String(account.account_number)));
      });

      it('gives transfers by status, counted from the database at the scrape', async () => {
        const statuses = ['pending', 'processing', 'successful', 'failed', 'reversed'];
        const before = (await scrape(suite)).text;
        for (const status of statuses) assert.equal(sample(before, 'baas_transfers', { status }), 0, status);

        const partner = await newPartner(suite, 'sandbox');
        const account = await createAccount(suite.t, partner.sandboxKey);
        const source = String(account.account_number);
        const funded = await suite.t.api.post(
          creditUrl(source),
          { amount: 10_000 },
          { token: partner.sandboxKey },
        );
        assert.equal(funded.status, 201, funded.text);
        // The sandbox bank answers by the beneficiary's last two digits: 10 succeeds, 05 fails.
        const ids: string[] = [];
        for (const ending of ['10', '10', '05']) {
          const sent = await suite.t.api.post(
            TRANSFERS,
            {
              source_account_number: source,
              amount: '100.00',
              bank_code: '000013',
              account_number: `${String(Date.now()).slice(-8)}${ending}`,
              reference: `metrics-${ids.length}-${Date.now()}`,
            },
            { token: partner.sandboxKey },
          );
          assert.equal(sent.status, 202, sent.text);
          ids.push(sent.body.data.id);
        }
        await until('the transfers settled', async () => {
          for (const id of ids) {
            const read = await suite.t.api.get(transferUrl(id), { token: partner.sandboxKey });
            if (!['successful', 'failed'].includes(read.body.data.status)) return false;
          }
          return true;
        });
        // A scrape within a second reuses the last reading.
        await new Promise((resolve) => setTimeout(resolve, 1_100));
        const after = (await scrape(suite)).text;
        assert.equal(sample(after, 'baas_transfers', { status: 'successful' }), 2);
        assert.equal(sample(after, 'baas_transfers', { status: 'failed' }), 1);
        for (const status of ['pending', 'processing', 'reversed'])
          assert.equal(sample(after, 'baas_transfers', { status }), 0, status);
      });
    });
  });
}
