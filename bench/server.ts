import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { startRaw } from './raw.js';

// One server under test in its own process: `app` (buildApp, as src/server.ts builds it) or `raw` (the
// twin). It reports its port over IPC, answers 'stats' with its CPU time (all threads) and peak RSS,
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
process.on('message', (message) => {
  if (message === 'stop') process.disconnect();
  const { user, system } = process.cpuUsage();
  if (message === 'stats')
    process.send?.({ cpuUs: user + system, maxRssKiB: process.resourceUsage().maxRSS });
});
process.send?.({ port: (server.address() as AddressInfo).port });
