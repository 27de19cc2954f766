import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { TEST_DATABASE_URL, type TestDatabase } from './app.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SERVER = path.join(ROOT, 'src', 'server.ts');
const TSX = pathToFileURL(path.join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

/** The real server (`node --import tsx src/server.ts`) in a child process. */
export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  /** Resolves with the exit code, or the signal name when a signal ended it. */
  exited: Promise<number | string | null>;
}

/** DATABASE_URL for a child process on a createTestDatabase() database (its own PostgreSQL schema). */
export function childDatabaseUrl(database: TestDatabase): string {
  if (!database.pgSchema) return database.env['DATABASE_URL']!;
  const separator = TEST_DATABASE_URL.includes('?') ? '&' : '?';
  return `${TEST_DATABASE_URL}${separator}options=-c%20search_path%3D${database.pgSchema}`;
}

/**
 * Starts the server with only `env` (plus PATH), from DATA_DIR as working directory so no stray
 * .env is read.
 */
export function spawnServer(env: Record<string, string>): ServerProcess {
  const cwd = env['DATA_DIR'] ?? ROOT;
  const child = spawn(process.execPath, ['--import', TSX, SERVER], {
    cwd,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: cwd, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + String(chunk)).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | string | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal)),
  );
  return { child, url: `http://127.0.0.1:${env['PORT']}`, output: () => output, exited };
}

/** Resolves once /readyz answers 200 (the database is open); fails if the process exits first. */
export async function waitUntilReady(server: ServerProcess, timeoutMs = 30_000): Promise<void> {
  let exit: number | string | null | undefined;
  void server.exited.then((code) => {
    exit = code;
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exit !== undefined) assert.fail(`server exited (${exit}) before it was ready:\n${server.output()}`);
    try {
      const response = await fetch(`${server.url}/readyz`);
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) assert.fail(`server not ready within ${timeoutMs} ms:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Kills the child (if it still runs) with `signal` and waits for it to exit. */
export async function stopServer(
  server: ServerProcess | undefined,
  signal: NodeJS.Signals = 'SIGKILL',
): Promise<number | string | null | undefined> {
  if (!server) return undefined;
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill(signal);
  return server.exited;
}
