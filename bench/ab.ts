import os from 'node:os';
import { median, phase, type Server, startServer, WARMUP_SECONDS } from './servers.js';
import { benchDatabase, compileServers, SCENARIOS } from './setup.js';

// `npm run bench:ab -- <variant> <variant>…`: the CPU a request costs each variant of the app under the
// same load, in turns of a few seconds in a new random order every round, so that the host's drift
// (this VM swings by a third within minutes) falls on all of them alike. See bench/README.md.

const { env } = process;
const DB = env['BENCH_DB'] === 'postgres' ? 'postgres' : 'sqlite';
const ROUNDS = Math.max(1, Math.round(Number(env['BENCH_ROUNDS'] || 12)));
const TURN = Number(env['BENCH_TURN'] || 3);
const NAME = env['BENCH_ONLY'] ?? 'business-info';

/** `'name --node-flag ENV=value …'`: a name starting with `raw` is the twin (bench/raw.ts). */
function variantOf(spec: string) {
  const [name = '', ...words] = spec.trim().split(/\s+/);
  const unknown = words.filter((word) => !word.startsWith('--') && !/^[A-Z_][A-Z0-9_]*=/.test(word));
  if (name === '' || name.startsWith('-') || name.includes('=') || unknown.length > 0)
    throw new Error(`variant "${spec}": a name, then node flags (--…) and environment (NAME=value)`);
  const env = Object.fromEntries(
    words
      .filter((word) => !word.startsWith('--'))
      .map((word) => {
        const at = word.indexOf('=');
        return [word.slice(0, at), word.slice(at + 1)];
      }),
  );
  return {
    name,
    side: name.startsWith('raw') ? ('raw' as const) : ('app' as const),
    flags: words.filter((word) => word.startsWith('--')),
    env,
  };
}

function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

async function main(): Promise<number> {
  const scenario = SCENARIOS.find((s) => s.name === NAME);
  if (!scenario) throw new Error(`BENCH_ONLY: one of ${SCENARIOS.map((s) => s.name).join(', ')}`);
  const specs = process.argv.slice(2);
  if (specs.length === 0)
    throw new Error("give the variants, e.g. npm run bench:ab -- base 'warn LOG_LEVEL=warn'");
  const variants = specs.map(variantOf);
  if (new Set(variants.map((v) => v.name)).size < variants.length)
    throw new Error('variant names must differ');
  console.log(
    `${DB}, ${scenario.name}: ${variants.length} variants, ${ROUNDS} rounds of ${TURN} s each, node ${process.version}, ` +
      `${os.availableParallelism()} CPUs (load ${os.loadavg()[0]!.toFixed(1)}); compiling…`,
  );
  compileServers();
  const database = await benchDatabase(DB);
  const servers: Server[] = [];
  try {
    for (const variant of variants)
      servers.push(
        await startServer(variant.side, database.env, {
          flags: variant.flags,
          env: variant.env,
          logName: variant.name,
        }),
      );
    const cpu = variants.map(() => [] as number[]);
    const rps = variants.map(() => [] as number[]);
    const peakMiB = variants.map(() => 0);
    let failures = 0;
    for (const server of servers)
      failures += (await phase(server, scenario, database.partners, WARMUP_SECONDS)).failures;
    for (let round = 0; round < ROUNDS; round++) {
      for (const index of shuffled(variants.map((_, i) => i))) {
        const run = await phase(servers[index]!, scenario, database.partners, TURN);
        failures += run.failures;
        cpu[index]!.push(run.cpuUs / Math.max(1, run.latencies.length));
        rps[index]!.push(run.latencies.length / run.seconds);
        peakMiB[index] = Math.max(peakMiB[index]!, run.maxRssKiB / 1024);
      }
      if (process.stdout.isTTY) process.stdout.write(`round ${round + 1}/${ROUNDS}\r`);
    }
    const range = (values: number[], digits: number) =>
      `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
    console.log(
      `\n| variant | CPU µs/req, median (range) | ÷ ${variants[0]!.name}, median of the rounds (range) | ` +
        `lower than ${variants[0]!.name} in | req/s, median | peak RSS MiB |`,
    );
    console.log(`|${' --- |'.repeat(6)}`);
    variants.forEach((variant, i) => {
      const ratios = cpu[i]!.map((value, round) => value / cpu[0]![round]!);
      const lower = ratios.filter((ratio) => ratio < 1).length;
      console.log(
        `| ${[variant.name, ...variant.flags, ...Object.entries(variant.env).map(([k, v]) => `${k}=${v}`)].join(' ')} | ` +
          `${median(cpu[i]!).toFixed(1)} (${range(cpu[i]!, 0)}) | ` +
          `${i === 0 ? '1' : `${median(ratios).toFixed(3)} (${range(ratios, 2)})`} | ` +
          `${i === 0 ? '' : `${lower} of ${ROUNDS}`} | ${median(rps[i]!).toFixed(0)} | ${peakMiB[i]!.toFixed(0)} |`,
      );
    });
    if (failures > 0) console.error(`ERROR ${failures} requests failed`);
    return failures > 0 ? 1 : 0;
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await database.drop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(2);
  },
);
