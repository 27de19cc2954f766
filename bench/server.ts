import { readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { startRaw } from './raw.js';

// One server under test in its own process: `app` (buildApp, as src/server.ts builds it) or `raw` (the
// twin). It reports its port over IPC, answers 'stats' with its CPU time (all threads) and peak RSS since the last 'stats',
// and closes on 'stop' or when the bench goes away.
const schema = process.env['BENCH_PG_SCHEMA'] || undefined;
let server: Server;
let close: () => Promise<unknown>;
if (process.argv[2] === 'app') {
  const app = await buildApp(loadConfig(process.env), schema ? { pgSchema: schema } : {});
  await app.listen({ port: 0, host: '127.0.0.1' });
  [server, close] = [app.server, () => app.close()];
} else {
  ({ server, close } = await startRaw(process.env['DATABASE_URL']!, schema));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
}
const stop = () => close().then(() => process.exit(0));
process.once('disconnect', stop);
/**
 * Peak RSS since the previous 'stats' (Linux: VmHWM, reset through /proc/self/clear_refs), so the
 * measured phase is not charged with start-up (schema compilation, the OpenAPI document); elsewhere
 * the lifetime peak.
 */
function peakRssKiB(): number {
  try {
    const peak = Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
    writeFileSync('/proc/self/clear_refs', '5');
    return peak;
  } catch {
    return process.resourceUsage().maxRSS;
  }
}
process.on('message', (message) => {
  if (message === 'stop') process.disconnect();
  const { user, system } = process.cpuUsage();
  if (message === 'stats') process.send?.({ cpuUs: user + system, maxRssKiB: peakRssKiB() });
});
process.send?.({ port: (server.address() as AddressInfo).port });
