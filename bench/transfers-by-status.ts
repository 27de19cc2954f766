import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import * as transfers from '../src/modules/transfers/transfers.repository.js';
import { TRANSFER_STATUSES } from '../src/modules/transfers/transfers.table.js';
import { openDatabase } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrator.js';
import { BACKLOG_CAP, TRANSFERS_CAP } from '../src/platform/metrics/metrics.js';

/*
 * `npx tsx bench/transfers-by-status.ts`: what the `baas_transfers{status}` gauge costs a scrape
 * (docs/operations.md, "Metrics"). Writes TRANSFERS (default 1,000,000) transfers by set-based SQL
 * into a scratch database (SQLite in a temporary folder, or a scratch schema of BENCH_PG_URL's
 * PostgreSQL; foreign keys off for the load), 90 % successful, 5 % failed, 3 % reversed, 1 %
 * pending, 1 % processing, then times the scrape's reading (five capped counts) RUNS times.
 */

const TOTAL = Number(process.env['TRANSFERS'] || 1_000_000);
const RUNS = Number(process.env['RUNS'] || 20);
const PG_URL = process.env['BENCH_PG_URL'];

const statusOf = sql`case when i % 100 < 90 then 'successful' when i % 100 < 95 then 'failed'
  when i % 100 < 98 then 'reversed' when i % 100 = 98 then 'pending' else 'processing' end`;

async function main(): Promise<void> {
  const folder = mkdtempSync(path.join(tmpdir(), 'baas-bench-status-'));
  const schema = `bench_status_${process.pid}`;
  if (PG_URL) {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`create schema ${schema}`);
    await client.end();
  }
  const database = PG_URL
    ? openDatabase(PG_URL, { pgSchema: schema })
    : openDatabase(`sqlite:${path.join(folder, 'bench.sqlite')}`);
  try {
    await migrateToLatest(database.db, database.schema);
    const numbers =
      database.dialect === 'postgres'
        ? sql`select i from generate_series(1, ${sql.lit(TOTAL)}) as n(i)`
        : sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${sql.lit(TOTAL)}) select i from n`;
    const started = Date.now();
    // Outside the transaction: SQLite ignores the pragma inside one.
    if (database.dialect === 'sqlite') await sql`pragma foreign_keys = off`.execute(database.db);
    await database.db.transaction().execute(async (trx) => {
      if (database.dialect === 'postgres')
        await sql`set local session_replication_role = replica`.execute(trx);
      await sql`insert into transfers (id, partner_id, environment, account_id, source_account_number,
          source_account_name, reference, kind, status, amount_kobo, fee_kobo, beneficiary_account_name,
          beneficiary_account_number, beneficiary_bank_code, beneficiary_bank_name, narration, created_at, updated_at)
        select 'trf_' || i, 1, 'live', 'acc', '0123456789', 'A', 'ref-' || i, 'interbank', ${statusOf}, 100, 10,
          'B', '9876543210', '000013', 'GTBank', 'n', i, i from (${numbers}) as numbers`.execute(trx);
    });
    // As autovacuum leaves a table at rest: the visibility map lets the counts read the index alone.
    if (database.dialect === 'postgres') await sql`vacuum analyze transfers`.execute(database.db);
    else await database.optimize();
    process.stdout.write(`${database.dialect}: ${TOTAL} transfers written in ${Date.now() - started} ms\n`);
    for (const cap of [BACKLOG_CAP, TRANSFERS_CAP]) {
      const times: number[] = [];
      let counts = new Map<string, number>();
      for (let run = 0; run < RUNS; run++) {
        const at = process.hrtime.bigint();
        counts = await transfers.countByStatus(database.db, TRANSFER_STATUSES, cap);
        times.push(Number(process.hrtime.bigint() - at) / 1e6);
      }
      times.sort((a, b) => a - b);
      const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1);
      process.stdout.write(
        `cap ${cap}: counts ${JSON.stringify(Object.fromEntries(counts))}; p50 ${at(0.5)} ms, max ${at(1)} ms over ${RUNS} runs\n`,
      );
    }
  } finally {
    await database.close();
    rmSync(folder, { recursive: true, force: true });
    if (PG_URL) {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`drop schema ${schema} cascade`);
      await client.end();
    }
  }
}

await main();
