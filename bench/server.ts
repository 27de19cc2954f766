import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { startRaw } from './raw.js';

// One server under test in its own process: `app` (buildApp, as production builds it) or `raw` (its
// twin). It reports its port over IPC, answers 'stats' with its CPU time (all threads) and peak RSS,
// and closes on 'stop' or when the bench goes away.
const schema = process.env['BENCH_PG_SCHEMA'] || undefined;
let server: Server;
let close: () => Promise<void>;
if (process.argv[2] === 'app') {
  const app = await buildApp(loadConfig(process.env), schema ? { pgSchema: schema } : {});
  await app.listen({ port: 0, host: '127.0.0.1' });
  server = app.server;
  close = () => app.close();
} else {
  ({ server, close } = await startRaw(process.env['DATABASE_URL']!, schema));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
}

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('message', (message) => {
  if (message === 'stop') stop();
  if (message !== 'stats') return;
  const { user, system } = process.cpuUsage();
  process.send?.({ cpuUs: user + system, maxRssKiB: process.resourceUsage().maxRSS });
});
process.on('disconnect', stop);
process.send?.({ port: (server.address() as AddressInfo).port });
