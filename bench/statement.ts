import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import pg from 'pg';
import { newId, randomToken, sha256 } from '../src/platform/crypto/tokens.js';
import { openDatabase } from '../src/platform/db/database.js';
import { START_ENV, START_FLAGS } from './setup.js';

// `npx tsx bench/statement.ts` (BENCH_DB=postgres for PostgreSQL): the server in its own process with
// the node flags of `npm start`, one account with 100,000 credits inserted by SQL, then a year's
// statement over HTTP as JSON and as CSV: size and time of each, and the server's peak RSS meanwhile.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DB = process.env['BENCH_DB'] === 'postgres' ? 'postgres' : 'sqlite';
const PG_URL = process.env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const COUNT = Number(process.env['BENCH_TRANSACTIONS'] || 100_000);
const [RUNS, BATCH] = [3, 1000];
const [FROM, TO] = ['2025-12-01', '2026-11-30'];

const pgQuery = async (text: string) => {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(text).finally(() => client.end());
};
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'baas-statement-bench-'));
const schema = DB === 'postgres' ? `bench_statement_${Date.now()}` : undefined;
const url = schema ? PG_URL : `sqlite:${path.join(dataDir, 'bench.sqlite')}`;
if (schema) await pgQuery(`create schema ${schema}`);
const childUrl = schema ? `${PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}` : url;
const port = 20_000 + Math.floor(Math.random() * 20_000);
const server = spawn(
  process.execPath,
  [
    ...START_FLAGS,
    '--import',
    pathToFileURL(path.join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href,
    path.join(ROOT, 'src', 'server.ts'),
  ],
  {
    cwd: dataDir,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...START_ENV,
      PATH: process.env['PATH'],
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      SMTP_URL: 'smtp://127.0.0.1:9',
      DATA_ENCRYPTION_KEY: Buffer.alloc(32, 0x5a).toString('base64'),
      RATE_LIMIT_IP_PER_MINUTE: '0',
      PUBLIC_URL: 'https://bench.invalid',
      DATA_DIR: dataDir,
      DATABASE_URL: childUrl,
    },
  },
);
const origin = `http://127.0.0.1:${port}`;
for (let tries = 0; ; tries++) {
  if (
    await fetch(`${origin}/readyz`).then(
      (r) => r.ok,
      () => false,
    )
  )
    break;
  if (tries > 300 || server.exitCode !== null) throw new Error('the server did not start');
  await new Promise((resolve) => setTimeout(resolve, 100));
}
/** The server's peak RSS in MiB since the last call (VmHWM, reset through clear_refs). */
const peakRss = () => {
  const kib = Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1]);
  fs.writeFileSync(`/proc/${server.pid}/clear_refs`, '5');
  return Math.round(kib / 1024);
};
const handle = openDatabase(url, schema ? { pgSchema: schema } : {});
try {
  const base = `${origin}/baas/api/v1/services/virtual-account`;
  const { db } = handle;

  // A partner and a sandbox API key, stored as the app stores them; the account over HTTP.
  const now = Date.now();
  const secret = randomToken();
  const apiKey = `sk_sandbox_${secret}`;
  const { rows } = await sql<{ id: number }>`insert into partners (email, business_name, legal_business_name,
      phone, password_hash, verified_at, onboarding_status, created_at, updated_at)
    values ('bench@example.com', 'Bench Payments', 'Bench Payments Ltd', '+2348031234567', 'x', ${now},
      'in_progress', ${now}, ${now}) returning id`.execute(db);
  const partnerId = rows[0]!.id;
  await sql`insert into api_keys (id, partner_id, name, environment, lookup_prefix, key_hash, last4, created_at)
    values (${newId()}, ${partnerId}, 'bench', 'sandbox', ${secret.slice(0, 12)}, ${sha256(apiKey)},
      ${apiKey.slice(-4)}, ${now})`.execute(db);
  const authorization = `Bearer ${apiKey}`;
  const created = await fetch(`${base}/create`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({
      first_name: 'Ada',
      last_name: 'Eze',
      email: 'ada@example.com',
      phone: '+2348090000000',
    }),
  });
  const account = ((await created.json()) as { data: { id: string; account_number: string } }).data;

  // COUNT credits spread over the year, inserted in batches of BATCH rows.
  const start = Date.parse(`${FROM}T00:00:00Z`);
  const span = Date.parse(`${TO}T23:59:59.999Z`) - start;
  let expectedKobo = 0;
  const seeded = performance.now();
  for (let offset = 0; offset < COUNT; offset += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, COUNT - offset) }, (_, k) => {
      const i = offset + k;
      const amount = 1 + ((i * 7919) % 5_000_000);
      expectedKobo += amount;
      return {
        id: newId(),
        account_id: account.id,
        partner_id: partnerId,
        environment: 'sandbox' as const,
        type: 'credit' as const,
        kind: 'inbound_transfer' as const,
        amount_kobo: amount,
        // Rows are made in ledger order (created_at rises with i; ids are time-ordered UUIDv7s).
        balance_after_kobo: expectedKobo,
        narration: i % 10 === 0 ? `Invoice ${i}, "urgent"` : `Transfer ${i}`,
        reference: `SIM-${newId()}`,
        created_at: start + Math.floor((i * span) / COUNT),
      };
    });
    await db.insertInto('account_transactions').values(batch).execute();
  }
  // The balance moves with its entries, as the ledger keeps it (the seed is one writer, so no lock).
  await db
    .updateTable('virtual_accounts')
    .set({ balance_kobo: expectedKobo })
    .where('id', '=', account.id)
    .execute();
  console.log(`${DB}: ${COUNT} transactions inserted in ${Math.round(performance.now() - seeded)} ms`);

  const statementUrl = `${base}/${account.account_number}/statement?from=${FROM}&to=${TO}`;
  console.log(`${DB}: server RSS before the statements ${peakRss()} MiB (node ${START_FLAGS.join(' ')})`);
  for (const accept of ['application/json', 'text/csv']) {
    const times: number[] = [];
    let bytes = 0;
    for (let run = 0; run < RUNS; run++) {
      const began = performance.now();
      const response = await fetch(statementUrl, { headers: { authorization, accept } });
      const body = await response.text();
      times.push(performance.now() - began);
      if (response.status !== 200) throw new Error(`${accept}: ${response.status} ${body.slice(0, 300)}`);
      bytes = Buffer.byteLength(body);
      if (accept === 'application/json') {
        const data = (JSON.parse(body) as { data: { total_credits_kobo: number; transactions: unknown[] } })
          .data;
        if (data.total_credits_kobo !== expectedKobo || data.transactions.length !== COUNT)
          throw new Error(`wrong statement: ${data.total_credits_kobo} / ${data.transactions.length}`);
      } else if (body.split('\r\n').length !== COUNT + 2) throw new Error('wrong CSV row count');
    }
    const ms = times.map((time) => Math.round(time)).join(', ');
    console.log(
      `${DB} ${accept}: ${(bytes / 1e6).toFixed(1)} MB, ${ms} ms (runs 1-${RUNS}), server peak RSS ${peakRss()} MiB`,
    );
  }
} finally {
  server.kill('SIGTERM');
  await handle.close();
  if (schema) await pgQuery(`drop schema if exists ${schema} cascade`);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
