import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { serveUntilStopped } from './children.js';

// The real app, built exactly as production builds it, in a process of its own. Configuration comes
// from the environment the bench passes; BENCH_PG_SCHEMA isolates a PostgreSQL run in a fresh schema.
const pgSchema = process.env['BENCH_PG_SCHEMA'];
const app = await buildApp(loadConfig(process.env), pgSchema ? { pgSchema } : {});
await app.listen({ port: 0, host: '127.0.0.1' });
serveUntilStopped((app.server.address() as AddressInfo).port, () => app.close());
