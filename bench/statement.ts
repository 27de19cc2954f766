import {
  BENCH_DB,
  benchAccount,
  benchPartner,
  START_FLAGS,
  seedCredits,
  startBenchServer,
} from './child-server.js';

// `npx tsx bench/statement.ts` (BENCH_DB=postgres for PostgreSQL): the server in its own process with
// the node flags of `npm start`, one account with 100,000 credits inserted by SQL, then a year's
// statement over HTTP as JSON and as CSV: size and time of each, and the server's peak RSS meanwhile.

const COUNT = Number(process.env['BENCH_TRANSACTIONS'] || 100_000);
const RUNS = 3;
const [FROM, TO] = ['2025-12-01', '2026-11-30'];

const bench = await startBenchServer('statement');
try {
  const authorization = await benchPartner(bench.db);
  const account = await benchAccount(bench.origin, authorization, 'ada@example.com');
  const start = Date.parse(`${FROM}T00:00:00Z`);
  const span = Date.parse(`${TO}T23:59:59.999Z`) - start;
  const seeded = performance.now();
  const expectedKobo = await seedCredits(bench.db, account, COUNT, { start, span });
  console.log(`${BENCH_DB}: ${COUNT} transactions inserted in ${Math.round(performance.now() - seeded)} ms`);

  const statementUrl = `${bench.origin}/baas/api/v1/services/virtual-account/${account.account_number}/statement?from=${FROM}&to=${TO}`;
  console.log(
    `${BENCH_DB}: server RSS before the statements ${bench.peakRss()} MiB (node ${START_FLAGS.join(' ')})`,
  );
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
      `${BENCH_DB} ${accept}: ${(bytes / 1e6).toFixed(1)} MB, ${ms} ms (runs 1-${RUNS}), server peak RSS ${bench.peakRss()} MiB`,
    );
  }
} finally {
  await bench.stop();
}
