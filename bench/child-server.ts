import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { newId, randomToken, sha256 } from '../src/platform/crypto/tokens.js';
import { type DatabaseHandle, openDatabase } from '../src/platform/db/database.js';
import type { Database } from '../src/platform/db/schema.js';
import { START_ENV, START_FLAGS } from './setup.js';

/*
 * For the benches that time one request at a time rather than under load (statement.ts,
 * credit-history.ts): the server in a process of its own, as `npm start` runs it (its node flags and
 * environment, production settings), on a fresh database the bench also reads and seeds directly.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BENCH_DB = process.env['BENCH_DB'] === 'postgres' ? 'postgres' : 'sqlite';
const PG_URL = process.env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

const pgQuery = async (text: string) => {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(text).finally(() => client.end());
};

export interface BenchServer {
  origin: string;
  server: ChildProcess;
  /** The bench's own handle on the server's database. */
  db: Kysely<Database>;
  /** Stops the server and starts it again on the same database (what start-up does, done again). */
  restart(): Promise<void>;
  /** The server's peak RSS in MiB since the last call (VmHWM, reset through clear_refs). */
  peakRss(): number;
  stop(): Promise<void>;
}

export async function startBenchServer(name: string, env: Record<string, string> = {}): Promise<BenchServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `baas-${name}-bench-`));
  const schema = BENCH_DB === 'postgres' ? `bench_${name.replaceAll('-', '_')}_${Date.now()}` : undefined;
  const url = schema ? PG_URL : `sqlite:${path.join(dataDir, 'bench.sqlite')}`;
  if (schema) await pgQuery(`create schema ${schema}`);
  const childUrl = schema ? `${PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}` : url;
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const spawnServer = () =>
    spawn(
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
          ...env,
        },
      },
    );
  let server = spawnServer();
  const origin = `http://127.0.0.1:${port}`;
  let handle: DatabaseHandle | undefined;
  const stop = async () => {
    // Dropping the schema while the server still works in it can deadlock with its workers.
    await exit();
    await handle?.close();
    if (schema) await pgQuery(`drop schema if exists ${schema} cascade`);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  const ready = async () => {
    for (let tries = 0; ; tries++) {
      const answered = await fetch(`${origin}/readyz`).then(
        (response) => response.ok,
        () => false,
      );
      if (answered) break;
      if (tries > 300 || server.exitCode !== null) throw new Error('the server did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const exit = async () => {
    const exited = new Promise((resolve) =>
      server.exitCode === null ? server.once('exit', resolve) : resolve(null),
    );
    server.kill('SIGTERM');
    await exited;
  };
  try {
    await ready();
    handle = openDatabase(url, schema ? { pgSchema: schema } : {});
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    origin,
    get server() {
      return server;
    },
    db: handle.db,
    restart: async () => {
      await exit();
      server = spawnServer();
      await ready();
    },
    peakRss: () => {
      const status = fs.readFileSync(`/proc/${server.pid}/status`, 'utf8');
      const kib = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]);
      fs.writeFileSync(`/proc/${server.pid}/clear_refs`, '5');
      return Math.round(kib / 1024);
    },
    stop,
  };
}

/** A partner with a sandbox API key, stored as the app stores them: the key's Authorization header. */
export async function benchPartner(db: Kysely<Database>): Promise<string> {
  const now = Date.now();
  const secret = randomToken();
  const apiKey = `sk_sandbox_${secret}`;
  const { rows } = await sql<{ id: number }>`insert into partners (email, business_name, legal_business_name,
      phone, password_hash, verified_at, onboarding_status, created_at, updated_at)
    values ('bench@example.com', 'Bench Payments', 'Bench Payments Ltd', '+2348031234567', 'x', ${now},
      'in_progress', ${now}, ${now}) returning id`.execute(db);
  await sql`insert into api_keys (id, partner_id, name, environment, lookup_prefix, key_hash, last4, created_at)
    values (${newId()}, ${rows[0]!.id}, 'bench', 'sandbox', ${secret.slice(0, 12)}, ${sha256(apiKey)},
      ${apiKey.slice(-4)}, ${now})`.execute(db);
  return `Bearer ${apiKey}`;
}

/** A virtual account made over HTTP. */
export async function benchAccount(
  origin: string,
  authorization: string,
  email: string,
): Promise<{ id: string; account_number: string }> {
  const created = await fetch(`${origin}/baas/api/v1/services/virtual-account/create`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ first_name: 'Ada', last_name: 'Eze', email, phone: '+2348090000000' }),
  });
  if (created.status !== 201) throw new Error(`account: ${created.status} ${await created.text()}`);
  return ((await created.json()) as { data: { id: string; account_number: string } }).data;
}

export { START_FLAGS };

/**
 * `count` credits on an account, spread evenly over [start, start + span), inserted by SQL in
 * batches in ledger order (created_at rising, ids time-ordered) with their running balance, and the
 * account's balance moved with them, as the ledger keeps it (the seed is the only writer). Answers
 * their total in kobo.
 */
export async function seedCredits(
  db: Kysely<Database>,
  account: { id: string },
  count: number,
  period: { start: number; span: number },
): Promise<number> {
  const { partner_id: partnerId } = await db
    .selectFrom('virtual_accounts')
    .select('partner_id')
    .where('id', '=', account.id)
    .executeTakeFirstOrThrow();
  let total = 0;
  for (let offset = 0; offset < count; offset += 1000) {
    const batch = Array.from({ length: Math.min(1000, count - offset) }, (_, k) => {
      const i = offset + k;
      const amount = 1 + ((i * 7919) % 5_000_000);
      total += amount;
      return {
        id: newId(),
        account_id: account.id,
        partner_id: partnerId,
        environment: 'sandbox' as const,
        type: 'credit' as const,
        kind: 'inbound_transfer' as const,
        amount_kobo: amount,
        balance_after_kobo: total,
        narration: i % 10 === 0 ? `Invoice ${i}, "urgent"` : `Transfer ${i}`,
        reference: `SIM-${newId()}`,
        counterparty_account_name: null,
        counterparty_account_number: null,
        counterparty_bank_code: null,
        counterparty_bank_name: null,
        session_id: null,
        transfer_id: null,
        created_at: period.start + Math.floor((i * period.span) / count),
      };
    });
    await db.insertInto('account_transactions').values(batch).execute();
  }
  await db
    .updateTable('virtual_accounts')
    .set({
      balance_kobo: total,
      last_entry_at: period.start + Math.floor(((count - 1) * period.span) / count),
    })
    .where('id', '=', account.id)
    .execute();
  return total;
}
