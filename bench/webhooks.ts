import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { sql } from 'kysely';
import { createKeyRing } from '../src/platform/crypto/keys.js';
import { encrypt } from '../src/platform/crypto/secret-box.js';
import { newWebhookSecret } from '../src/platform/crypto/standard-webhooks.js';
import { BENCH_DB, startBenchServer } from './child-server.js';

/*
 * `npm run bench:webhooks`: webhook deliveries a second at a backlog of 1,000, 10,000 and 50,000 due
 * events (BENCH_WEBHOOK_BACKLOGS), spread evenly over BENCH_WEBHOOK_PARTNERS partners (10) whose
 * sandbox endpoints are loopback receivers in this process answering 200 at once. For each backlog a
 * fresh server (child-server.ts: as `npm start` runs it, on a database of its own) gets the events in
 * one set-based statement while it runs, and the receivers count what arrives for
 * BENCH_WEBHOOK_SECONDS (10) or until the backlog is gone. WEBHOOK_CONCURRENCY and
 * WEBHOOK_ENDPOINT_CONCURRENCY, when set, go to the server. Also prints the load average: this host is
 * shared, so figures are only comparable within one run.
 */

const BACKLOGS = (process.env['BENCH_WEBHOOK_BACKLOGS'] || '1000,10000,50000').split(',').map(Number);
const PARTNERS = Number(process.env['BENCH_WEBHOOK_PARTNERS'] || 10);
const SECONDS = Number(process.env['BENCH_WEBHOOK_SECONDS'] || 10);
/** The worker's settings, passed on to the server when set. */
const SETTINGS = Object.fromEntries(
  ['WEBHOOK_CONCURRENCY', 'WEBHOOK_ENDPOINT_CONCURRENCY']
    .filter((name) => process.env[name])
    .map((name) => [name, process.env[name]!]),
);
/** child-server.ts's DATA_ENCRYPTION_KEY: the endpoints' secrets are encrypted as the server reads them. */
const ENCRYPTION_KEY = Buffer.alloc(32, 0x5a).toString('base64');

const numbers = (n: number) =>
  BENCH_DB === 'postgres'
    ? { with: sql``, from: sql`generate_series(1, ${sql.lit(n)}) as n(i)` }
    : {
        with: sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${sql.lit(n)})`,
        from: sql`n`,
      };

async function measure(backlog: number): Promise<void> {
  const seen = new Set<string>();
  let duplicates = 0;
  const receiver = http.createServer((request, response) => {
    const id = String(request.headers['webhook-id']);
    if (seen.has(id)) duplicates += 1;
    seen.add(id);
    request.resume();
    request.on('end', () => response.writeHead(200).end('ok'));
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const port = (receiver.address() as AddressInfo).port;
  const server = await startBenchServer('webhooks', {
    // Loopback receivers: the SSRF guard is lifted, which production refuses.
    NODE_ENV: 'development',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    ...SETTINGS,
  });
  try {
    const { db } = server;
    const now = Date.now();
    const secret = encrypt(createKeyRing(ENCRYPTION_KEY).encryption, newWebhookSecret());
    let n = numbers(PARTNERS);
    await sql`${n.with} insert into partners (email, business_name, legal_business_name, phone, password_hash,
        onboarding_status, created_at, updated_at)
      select 'hooks-' || cast(i as text) || '@example.com', 'Hooks ' || cast(i as text),
        'Hooks ' || cast(i as text) || ' Ltd', '+2348000000000', 'x', 'in_progress', ${sql.lit(now)}, ${sql.lit(now)}
      from ${n.from}`.execute(db);
    const { first } = await db
      .selectFrom('partners')
      .select((eb) => eb.fn.min('id').as('first'))
      .where('email', 'like', 'hooks-%')
      .executeTakeFirstOrThrow();
    await sql`insert into webhook_endpoints (partner_id, environment, url, secret_encrypted, created_at, updated_at)
      select id, 'sandbox', ${`http://127.0.0.1:${port}/p/`} || cast(id as text), ${secret}, ${sql.lit(now)}, ${sql.lit(now)}
      from partners where email like 'hooks-%'`.execute(db);
    n = numbers(backlog);
    const started = performance.now();
    await sql`${n.with} insert into outbox_events (id, partner_id, environment, type, payload, created_at, status,
        attempts, next_attempt_at)
      select 'msg_bench' || cast(1000000 + i as text), ${sql.lit(first)} + i % ${sql.lit(PARTNERS)}, 'sandbox',
        'webhook.test', '{"message":"bench"}', ${sql.lit(now)} - ${sql.lit(backlog)} + i, 'pending', 0,
        ${sql.lit(now)} - ${sql.lit(backlog)} + i
      from ${n.from}`.execute(db);
    const written = performance.now() - started;
    const from = performance.now();
    const firstCount = seen.size;
    while (performance.now() - from < SECONDS * 1000 && seen.size < backlog) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seconds = (performance.now() - from) / 1000;
    const delivered = seen.size - firstCount;
    console.log(
      `| ${BENCH_DB} | ${backlog.toLocaleString('en')} | ${PARTNERS} | ${delivered.toLocaleString('en')} in ${seconds.toFixed(1)} s | ` +
        `**${Math.round(delivered / seconds)}** | ${duplicates} | ${Math.round(written)} ms | ${os
          .loadavg()
          .map((load) => load.toFixed(1))
          .join(' ')} |`,
    );
  } finally {
    await server.stop();
    receiver.closeAllConnections();
    receiver.close();
  }
}

console.log(
  `webhook deliveries on ${BENCH_DB}, ${PARTNERS} partners, for up to ${SECONDS} s a backlog (${os.cpus().length} cores) ${JSON.stringify(SETTINGS)}\n`,
);
console.log(
  '| database | backlog | partners | delivered | per second | sent twice | backlog written | load average (1, 5, 15 min) |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const backlog of BACKLOGS) await measure(backlog);
