import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { TEST_DATABASE_URL, TEST_ENCRYPTION_KEY, type TestDatabase } from './app.js';
import { Api } from './http.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SERVER = path.join(ROOT, 'src', 'server.ts');
const TSX = pathToFileURL(path.join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const START_TIMEOUT_MS = 30_000;

/** DATABASE_URL for a child process: the SQLite file, or PostgreSQL with the test schema as search_path. */
export function childDatabaseUrl(database: TestDatabase): string {
  if (!database.pgSchema) return database.env['DATABASE_URL']!;
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${database.pgSchema}`);
  return url.toString();
}

/** The real server (`node --import tsx src/server.ts`) as a child process, killable like a crash. */
export class ChildServer {
  readonly api: Api;
  private child: ChildProcess | undefined;
  private exited: Promise<number | null> = Promise.resolve(null);
  private output = '';
  private readonly cwd = mkdtempSync(path.join(tmpdir(), 'baas-child-'));

  constructor(
    readonly port: number,
    private readonly env: Record<string, string>,
  ) {
    this.api = new Api(`http://127.0.0.1:${port}`);
  }

  /** Environment shared by every start: the same database, data directory and encryption key. */
  static envFor(database: TestDatabase, extra: Record<string, string>): Record<string, string> {
    return {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      DATA_DIR: database.dataDir,
      DATABASE_URL: childDatabaseUrl(database),
      DATA_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      RATE_LIMIT_IP_PER_MINUTE: '0',
      ...extra,
    };
  }

  /** Starts the process (from an empty working directory, so no .env is read) and waits for /healthz. */
  async start(): Promise<void> {
    assert.equal(this.child, undefined, 'already running');
    const child = spawn(process.execPath, ['--import', TSX, SERVER], {
      cwd: this.cwd,
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        HOME: this.cwd,
        ...this.env,
        PORT: String(this.port),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout?.on('data', (chunk) => {
      this.output += String(chunk);
    });
    child.stderr?.on('data', (chunk) => {
      this.output += String(chunk);
    });
    let exitCode: string | undefined;
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        exitCode = signal ? `signal ${signal}` : `code ${code}`;
        resolve(code);
      }),
    );
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (exitCode !== undefined) {
        this.child = undefined;
        throw new Error(`server exited (${exitCode}) while starting: ${this.output.slice(-2000)}`);
      }
      try {
        if ((await fetch(`${this.api.baseUrl}/healthz`)).status === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`server did not start: ${this.output.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** SIGKILL: no shutdown hook runs, in-flight deliveries and leases are abandoned. */
  async kill(): Promise<void> {
    if (!this.child) return;
    this.child.kill('SIGKILL');
    await this.exited;
    this.child = undefined;
  }

  get logs(): string {
    return this.output;
  }

  async dispose(): Promise<void> {
    await this.kill();
    rmSync(this.cwd, { recursive: true, force: true });
  }
}
