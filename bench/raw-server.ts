import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveUntilStopped } from './children.js';
import { createRawState, type Fixture, type RawHandler, sendError } from './raw-kit.js';
import { SCENARIOS } from './scenarios.js';

// The baseline: plain node:http doing each scenario's work from memory (rows copied from the app's
// database after seeding), with the same envelope and security headers as the app.
const fixtureFile = process.env['BENCH_FIXTURE'];
if (!fixtureFile) throw new Error('BENCH_FIXTURE is not set');
const state = createRawState(JSON.parse(readFileSync(fixtureFile, 'utf8')) as Fixture);

const routes = new Map<string, RawHandler>();
for (const scenario of SCENARIOS) {
  for (const route of scenario.routes) routes.set(`${route.method} ${route.path}`, route.handle);
}

const server = createServer((req, res) => {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  const handler = routes.get(`${req.method} ${query === -1 ? url : url.slice(0, query)}`);
  if (!handler) return sendError(res, 404, 'NOT_FOUND', 'The requested resource was not found.');
  const done = handler(req, res, state);
  if (done instanceof Promise) {
    done.catch(() => {
      if (!res.headersSent) sendError(res, 500, 'INTERNAL_ERROR', 'An unexpected error occurred.');
    });
  }
});
// The app's server timeouts (src/app.ts), so connection handling matches.
server.timeout = 60_000;
server.keepAliveTimeout = 5_000;
server.headersTimeout = 10_000;
server.requestTimeout = 30_000;

server.listen(0, '127.0.0.1', () => {
  serveUntilStopped(
    (server.address() as AddressInfo).port,
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
});
