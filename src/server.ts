import { buildApp } from './app.js';
import { ConfigError, loadConfig, readDotEnv } from './config.js';
import { installProcessSafetyNet } from './process-safety.js';

/**
 * Starts the service. SIGTERM/SIGINT stop accepting and the workers' claiming, let in-flight
 * requests and worker attempts finish (within SHUTDOWN_GRACE_MS), close the database and exit 0; an
 * uncaught exception does the same (within 10 s) and exits 1 (process-safety.ts).
 */
async function main(): Promise<void> {
  readDotEnv();
  const config = loadConfig(process.env);
  const app = await buildApp(config);
  installProcessSafetyNet(app, { shutdownGraceMs: config.SHUTDOWN_GRACE_MS });
  const listening = await app.listen({ port: config.PORT, host: config.HOST });
  // The address people open: PUBLIC_URL behind a proxy, else where the socket really is (PORT=0 too).
  const origin = config.PUBLIC_URL ?? listening;
  const pages = {
    dashboard: `${origin}/dashboard`,
    console: `${origin}/console`,
    docs: `${origin}/docs`,
  };
  app.log.info(
    pages,
    `partner dashboard ${pages.dashboard}, operator console ${pages.console}${
      config.ADMIN_API_KEY ? '' : ' (off until ADMIN_API_KEY is set)'
    }, API reference ${pages.docs}`,
  );
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(
      `failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
});
