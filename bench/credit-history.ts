import { BENCH_DB, benchAccount, benchPartner, seedCredits, startBenchServer } from './child-server.js';

// `npx tsx bench/credit-history.ts` (BENCH_DB=postgres for PostgreSQL): does a credit cost the same on
// an account with a long ledger as on a new one? The server in its own process as `npm start` runs
// it; one account seeded with 200,000 entries (BENCH_ENTRIES), one new; then sandbox credits over
// HTTP, one at a time, alternating between the two (so the host's drift weighs on both alike),
// after a warm-up. Prints each account's median and 95th-percentile latency and their ratio.

const ENTRIES = Number(process.env['BENCH_ENTRIES'] || 200_000);
const CREDITS = Number(process.env['BENCH_CREDITS'] || 400);
const WARMUP = 200;

const bench = await startBenchServer('credit-history');
try {
  const authorization = await benchPartner(bench.db);
  const long = await benchAccount(bench.origin, authorization, 'long@example.com');
  const fresh = await benchAccount(bench.origin, authorization, 'fresh@example.com');
  const year = 365 * 86_400_000;
  const seeded = performance.now();
  await seedCredits(bench.db, long, ENTRIES, { start: Date.now() - year, span: year - 60_000 });
  console.log(`${BENCH_DB}: ${ENTRIES} entries seeded in ${Math.round(performance.now() - seeded)} ms`);

  const credit = async (accountNumber: string): Promise<number> => {
    const began = performance.now();
    const response = await fetch(
      `${bench.origin}/baas/api/v1/services/virtual-account/${accountNumber}/simulate-credit`,
      {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: '1.00', narration: 'bench' }),
      },
    );
    await response.text();
    if (response.status !== 201) throw new Error(`credit: ${response.status}`);
    return performance.now() - began;
  };
  for (let i = 0; i < WARMUP; i++) await credit(i % 2 === 0 ? long.account_number : fresh.account_number);
  const times: Record<'long' | 'fresh', number[]> = { long: [], fresh: [] };
  for (let i = 0; i < CREDITS; i++) {
    times.long.push(await credit(long.account_number));
    times.fresh.push(await credit(fresh.account_number));
  }
  const at = (list: number[], q: number) =>
    [...list].sort((x, y) => x - y)[Math.floor(q * (list.length - 1))]!;
  const row = (name: 'long' | 'fresh') =>
    `${name === 'long' ? `${ENTRIES.toLocaleString('en')} entries` : 'new account'}: p50 ${at(times[name], 0.5).toFixed(2)} ms, p95 ${at(times[name], 0.95).toFixed(2)} ms`;
  console.log(`${BENCH_DB}, ${CREDITS} credits each, alternating:`);
  console.log(`  ${row('long')}`);
  console.log(`  ${row('fresh')}`);
  console.log(`  ratio of medians (long / new): ${(at(times.long, 0.5) / at(times.fresh, 0.5)).toFixed(2)}`);
} finally {
  await bench.stop();
}
