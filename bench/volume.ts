import autocannon, { type Request } from 'autocannon';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../src/platform/db/schema.js';
import { BENCH_DB, benchAccount, benchPartner, startBenchServer } from './child-server.js';

/*
 * `npm run bench:volume`: every list and read a partner or an operator makes, timed on a data set of
 * the size docs/decisions.md ("Indexes at volume") plans for. The data set is written with set-based
 * SQL (generate_series on PostgreSQL, a recursive CTE on SQLite), not through the API; the server runs
 * as `npm start` runs it (child-server.ts). BENCH_VOLUME_SCALE scales the full size (PostgreSQL: 2,000
 * partners, 1,000,000 accounts of which one partner holds half, 5,000,000 entries of which one account
 * holds 200,000, 2,000,000 events, 1,000,000 audit events; SQLite a tenth): 0.01 by default, about a
 * minute. Each request is loaded by autocannon at BENCH_VOLUME_CONNECTIONS (8) for
 * BENCH_VOLUME_SECONDS (3) and its p50 and p99 printed; creation and credit first on the empty
 * database, after BENCH_VOLUME_WARMUP (10) seconds of them, then on the full one.
 */

const SCALE = Number(process.env['BENCH_VOLUME_SCALE'] || 0.01) * (BENCH_DB === 'sqlite' ? 0.1 : 1);
const SECONDS = Number(process.env['BENCH_VOLUME_SECONDS'] || 3);
const CONNECTIONS = Number(process.env['BENCH_VOLUME_CONNECTIONS'] || 8);
const WARMUP_SECONDS = Number(process.env['BENCH_VOLUME_WARMUP'] || 10);
const ADMIN_KEY = 'bench-admin-key-0123456789abcdefghijklmnop';
const API = '/baas/api/v1';

const size = (full: number) => Math.max(10, Math.round(full * SCALE));
const PARTNERS = size(2_000);
const ACCOUNTS = size(1_000_000);
const ENTRIES = size(5_000_000);
const BIG_ACCOUNT_ENTRIES = size(200_000);
const EVENTS = size(2_000_000);
const AUDIT = size(1_000_000);
const T0 = Date.now() - 20 * 24 * 60 * 60 * 1000;

/** `select i from <numbers 1..n>`: set-based on both databases. */
function numbers(n: number): { with: RawBuilder<unknown>; from: RawBuilder<unknown> } {
  return BENCH_DB === 'postgres'
    ? { with: sql``, from: sql`generate_series(1, ${sql.lit(n)}) as n(i)` }
    : {
        with: sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${sql.lit(n)})`,
        from: sql`n`,
      };
}

/** A UUID-shaped id for row `row` (default i) of a table (`tag`: 4 hex digits), below every id the app makes. */
function uuidOf(tag: string, row: RawBuilder<unknown> = sql`i`): RawBuilder<string> {
  const digits =
    BENCH_DB === 'postgres'
      ? sql`lpad(cast(${row} as text), 12, '0')`
      : sql`substr('000000000000' || cast(${row} as text), -12, 12)`;
  return sql<string>`${sql.lit(`00000000-0000-7000-${tag}-`)} || ${digits}`;
}
const ACCOUNT = '8001';
const accountId = (i: number) => `00000000-0000-7000-${ACCOUNT}-${String(i).padStart(12, '0')}`;

async function timed(label: string, run: () => Promise<unknown>) {
  const started = performance.now();
  await run();
  console.log(`  ${label}: ${Math.round(performance.now() - started)} ms`);
}

/**
 * The bench partner (`bench`, its sandbox key) holds half the accounts and a quarter of the events
 * (one in 5,000 a credit, the rare type);
 * the other partners share the rest. One of its accounts (`big`) holds BIG_ACCOUNT_ENTRIES entries.
 */
async function seed(db: Kysely<Database>, bench: number, big: string): Promise<void> {
  const { a: first } = await db
    .selectFrom('partners')
    .select((eb) => eb.fn.max('id').as('a'))
    .executeTakeFirstOrThrow();
  const others = PARTNERS - 1;
  const other = sql`${sql.lit(first + 1)} + i % ${sql.lit(others)}`;
  // Events carry a real payload of their type: one the warm-up and the empty database's credits wrote.
  const payloadOf = (type: string) =>
    sql`(select payload from outbox_events where partner_id = ${sql.lit(bench)} and type = ${sql.lit(type)} limit 1)`;
  let n = numbers(others);
  await timed(`${others} partners`, () =>
    sql`${n.with} insert into partners (email, business_name, legal_business_name, phone, password_hash,
        onboarding_status, created_at, updated_at)
      select 'volume-' || cast(i as text) || '@example.com', 'Volume ' || cast(i as text),
        'Volume ' || cast(i as text) || ' Ltd', '+2348000000000', 'x', 'in_progress', ${sql.lit(T0)}, ${sql.lit(T0)}
      from ${n.from}`.execute(db),
  );
  n = numbers(ACCOUNTS);
  await timed(`${ACCOUNTS} accounts`, () =>
    sql`${n.with} insert into virtual_accounts (id, partner_id, environment, account_number, bank_code,
        bank_name, account_name, currency, status, first_name, last_name, customer_email, phone, created_at,
        balance_kobo)
      select ${uuidOf(ACCOUNT)},
        case when i % 2 = 0 then ${sql.lit(bench)} else ${other} end,
        case when i % 2 = 0 or i % 3 = 0 then 'sandbox' else 'live' end, cast(7000000000 + i as text), '999999',
        'Volume Bank', 'Volume Row' || cast(i as text), 'NGN',
        case when i % 1000 = 0 then 'inactive' else 'active' end, 'Volume', 'Row' || cast(i as text),
        'volume' || cast(i as text) || '@example.com', '+2348000000000', ${sql.lit(T0)} + i, 100
      from ${n.from}`.execute(db),
  );
  n = numbers(ENTRIES);
  await timed(`${ENTRIES} entries, ${BIG_ACCOUNT_ENTRIES} on one account`, () =>
    sql`${n.with} insert into account_transactions (id, account_id, partner_id, environment, type, kind,
        amount_kobo, balance_after_kobo, reference, created_at)
      select ${uuidOf('8002')},
        case when i <= ${sql.lit(BIG_ACCOUNT_ENTRIES)} then ${big}
          else ${uuidOf(ACCOUNT, sql`1 + i % ${sql.lit(ACCOUNTS)}`)} end,
        ${sql.lit(bench)}, 'sandbox', 'credit', 'inbound_transfer', 100, 100 * i, 'VOL-' || cast(i as text),
        ${sql.lit(T0)} + i
      from ${n.from}`.execute(db),
  );
  await sql`update virtual_accounts set balance_kobo = ${sql.lit(100 * BIG_ACCOUNT_ENTRIES)}, last_entry_at =
      ${sql.lit(T0 + BIG_ACCOUNT_ENTRIES)} where id = ${big}`.execute(db);
  n = numbers(EVENTS);
  await timed(`${EVENTS} events`, () =>
    sql`${n.with} insert into outbox_events (id, partner_id, environment, type, payload, created_at, status,
        attempts, next_attempt_at)
      select ${uuidOf('8003')},
        case when i % 4 = 0 then ${sql.lit(bench)} else ${other} end, 'sandbox',
        case when i % 5000 = 0 then 'virtual_account.credited' else 'virtual_account.created' end,
        case when i % 5000 = 0 then ${payloadOf('virtual_account.credited')}
          else ${payloadOf('virtual_account.created')} end,
        ${sql.lit(T0)} + i, case when i % 100 = 0 then 'failed' else 'delivered' end, 1, ${sql.lit(T0)} + i
      from ${n.from}`.execute(db),
  );
  n = numbers(AUDIT);
  await timed(`${AUDIT} audit events`, () =>
    sql`${n.with} insert into audit_events (id, partner_id, actor_type, actor_id, action, created_at)
      select ${uuidOf('8004')},
        case when i % 2 = 0 then ${sql.lit(bench)} else ${other} end,
        case when i % 1000 = 0 then 'operator' else 'partner' end,
        case when i % 1000 = 0 then 'volume-operator' else cast(${sql.lit(bench)} as text) end,
        case when i % 2000 = 0 then 'operator.signed_in' else 'virtual_account.created' end, ${sql.lit(T0)} + i
      from ${n.from}`.execute(db),
  );
  // What autovacuum does within minutes. On SQLite the server's own connection must gather them (one
  // connection does not see another's): main() restarts it, and its start-up runs PRAGMA optimize.
  if (BENCH_DB === 'postgres') await timed('statistics', () => sql`analyze`.execute(db));
}

interface Figures {
  name: string;
  requests: number;
  p50: number;
  p99: number;
  failures: number;
}

async function measure(origin: string, name: string, request: Request): Promise<Figures> {
  // One request first: a refusal is printed with its answer, not only counted.
  const probe = await fetch(`${origin}${request.path}`, {
    method: request.method ?? 'GET',
    ...(request.headers ? { headers: request.headers } : {}),
    ...(request.body ? { body: request.body.replaceAll('[<id>]', 'probe') } : {}),
  });
  if (probe.status >= 300) console.log(`  ${name}: ${probe.status} ${(await probe.text()).slice(0, 300)}`);
  else await probe.arrayBuffer();
  return load(origin, name, request);
}

function load(origin: string, name: string, request: Request, seconds = SECONDS): Promise<Figures> {
  const latencies: number[] = [];
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: origin,
        connections: CONNECTIONS,
        pipelining: 1,
        duration: seconds,
        timeout: 10,
        requests: [request],
        idReplacement: true,
      },
      (error, result) => {
        if (error) return reject(error);
        latencies.sort((x, y) => x - y);
        const at = (q: number) =>
          latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
        resolve({
          name,
          requests: latencies.length,
          p50: at(0.5),
          p99: at(0.99),
          failures: result.errors + result.non2xx,
        });
      },
    ).on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status < 300) latencies.push(ms);
    });
  });
}

async function main() {
  const server = await startBenchServer('volume', {
    ADMIN_API_KEY: ADMIN_KEY,
    // Production settings need a sponsor bank; nothing here calls it.
    BANK_CONNECTOR_URL: 'http://127.0.0.1:9',
    BANK_CONNECTOR_SECRET: `whsec_${Buffer.alloc(32, 0x33).toString('base64')}`,
    TRANSFER_WORKER: 'false',
  });
  try {
    const authorization = await benchPartner(server.db);
    const { id: bench } = await server.db
      .selectFrom('partners')
      .select('id')
      .where('email', '=', 'bench@example.com')
      .executeTakeFirstOrThrow();
    const empty = await benchAccount(server.origin, authorization, 'empty@example.com');
    console.log(
      `${BENCH_DB}, scale ${SCALE}: ${PARTNERS} partners, ${ACCOUNTS} accounts, ${ENTRIES} entries, ${EVENTS} events, ${AUDIT} audit events`,
    );
    // V8 optimizes the request path over its first tens of thousands of requests (README.md): warm
    // up on the empty database first, so its figures are not a cold start.
    const warmUp = (body: string, path: string) =>
      load(
        server.origin,
        'warm-up',
        {
          method: 'POST',
          path: `${API}${path}`,
          headers: { authorization, 'content-type': 'application/json' },
          body,
        },
        WARMUP_SECONDS / 2,
      );
    const warmUps = async () => {
      await warmUp(
        JSON.stringify({
          first_name: 'Ada',
          last_name: 'Eze',
          email: 'w-[<id>]@example.com',
          phone: '+2348090000000',
        }),
        '/services/virtual-account/create',
      );
      await warmUp(
        JSON.stringify({ amount: 100 }),
        `/services/virtual-account/${empty.account_number}/simulate-credit`,
      );
    };
    await warmUps();
    const emptyFigures = [
      await measure(server.origin, 'create an account (empty database)', {
        method: 'POST',
        path: `${API}/services/virtual-account/create`,
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({
          first_name: 'Ada',
          last_name: 'Eze',
          email: 'e-[<id>]@example.com',
          phone: '+2348090000000',
        }),
      }),
      await measure(server.origin, 'simulate a credit (empty database)', {
        method: 'POST',
        path: `${API}/services/virtual-account/${empty.account_number}/simulate-credit`,
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 100 }),
      }),
    ];
    const big = accountId(2);
    await seed(server.db, bench, big);
    if (BENCH_DB === 'sqlite') {
      await timed('restart (statistics at start-up)', () => server.restart());
      await warmUps();
    }
    const bigNumber = '7000000002';
    const partner = (path: string): Request => ({
      method: 'GET',
      path: `${API}${path}`,
      headers: { authorization },
    });
    const admin = (path: string): Request => ({
      method: 'GET',
      path: `${API}/admin/${path}`,
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    const loads: Array<[string, Request]> = [
      ['accounts, first page (partner of half the accounts)', partner('/services/virtual-account')],
      ['accounts by e-mail', partner('/services/virtual-account?email=volume2000%40example.com')],
      ['accounts by status=inactive', partner('/services/virtual-account?status=inactive')],
      ['accounts by q (number prefix)', partner('/services/virtual-account?q=70000020')],
      ['one account (by number)', partner(`/services/virtual-account/${bigNumber}`)],
      ['its transactions, first page', partner(`/services/virtual-account/${bigNumber}/transactions`)],
      ['events, first page', partner('/services/events')],
      ['events by a rare type', partner('/services/events?type=virtual_account.credited')],
      ['events by delivery_status=failed', partner('/services/events?delivery_status=failed')],
      ['audit trail, first page (operator)', admin('audit-events')],
      ['audit by actor_type=operator', admin('audit-events?actor_type=operator')],
      ['audit by action', admin('audit-events?action=operator.signed_in')],
      ['audit by company', admin(`audit-events?company_id=${bench}`)],
      ['audit by actor_id', admin('audit-events?actor_id=volume-operator')],
    ];
    const figures: Figures[] = [];
    for (const [name, request] of loads) figures.push(await measure(server.origin, name, request));
    figures.push(
      await measure(server.origin, 'create an account (full database)', {
        method: 'POST',
        path: `${API}/services/virtual-account/create`,
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({
          first_name: 'Ada',
          last_name: 'Eze',
          email: 'f-[<id>]@example.com',
          phone: '+2348090000000',
        }),
      }),
      await measure(server.origin, 'simulate a credit (account of the big partner)', {
        method: 'POST',
        path: `${API}/services/virtual-account/${bigNumber}/simulate-credit`,
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 100 }),
      }),
    );
    console.log(`\n${CONNECTIONS} connections, ${SECONDS} s each\n`);
    console.log('| request | answers | p50 ms | p99 ms | failed |\n| --- | --- | --- | --- | --- |');
    for (const row of [...emptyFigures, ...figures]) {
      console.log(
        `| ${row.name} | ${row.requests} | ${row.p50.toFixed(1)} | ${row.p99.toFixed(1)} | ${row.failures} |`,
      );
    }
    if ([...emptyFigures, ...figures].some((row) => row.failures > 0)) process.exitCode = 1;
  } finally {
    await server.stop();
  }
}

await main();
