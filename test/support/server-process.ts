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

/** The real server (`node --import tsx src/server.ts`, or another script) in a child process. */
export interface ServerProcess {
  child: ChildProcess;
  url: string;
  api: Api;
  stdout(): string;
  stderr(): string;
  /** stdout and stderr as they came. */
  output(): string;
  /** Resolves with the exit code, or the signal name when a signal ended it. */
  exited: Promise<number | string | null>;
  /** Leads a process group of its own: stopServer signals the whole group. */
  detached: boolean;
}

export interface SpawnOptions {
  /** The working directory; default DATA_DIR. A fresh one means no stray .env is read. */
  cwd?: string;
  /** The script to run instead of src/server.ts. */
  script?: string;
  /** 'pipe' lets the test write to the process's stdin. */
  stdin?: 'ignore' | 'pipe';
  /** In a process group of its own, so that a kill reaches anything it started. */
  detached?: boolean;
}

/** DATABASE_URL for a child process on a createTestDatabase() database (its own PostgreSQL schema). */
export function childDatabaseUrl(database: TestDatabase): string {
  if (!database.pgSchema) return database.env['DATABASE_URL']!;
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${database.pgSchema}`);
  return url.toString();
}

/**
 * What a child process needs to be cleaned up with the run (see scripts/test.mjs): the run's TMPDIR,
 * the lifeline preload in NODE_OPTIONS and the pids it watches. Empty outside `npm test`.
 */
export function runEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['TMPDIR', 'NODE_OPTIONS', 'BAAS_LIFELINE_PIDS']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** The environment of a server on `database` (its DATA_DIR, its schema, the test key), plus `extra`. */
export function serverEnv(
  database: TestDatabase,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    ...runEnv(),
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATA_DIR: database.dataDir,
    DATABASE_URL: childDatabaseUrl(database),
    DATA_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    RATE_LIMIT_IP_PER_MINUTE: '0',
    ...extra,
  };
}

/** Starts the server with only `env` (plus PATH and HOME); `env.PORT` is where it listens. */
export function spawnServer(env: Record<string, string>, options: SpawnOptions = {}): ServerProcess {
  const cwd = options.cwd ?? env['DATA_DIR'] ?? ROOT;
  const child = spawn(process.execPath, ['--import', TSX, options.script ?? SERVER], {
    cwd,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: cwd, ...runEnv(), ...env },
    stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  let stdout = '';
  let stderr = '';
  let output = '';
  child.stdout?.on('data', (chunk) => {
    stdout += String(chunk);
    output += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
    output += String(chunk);
  });
  const exited = new Promise<number | string | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal)),
  );
  const url = `http://127.0.0.1:${env['PORT']}`;
  return {
    child,
    url,
    api: new Api(url),
    stdout: () => stdout,
    stderr: () => stderr,
    output: () => output,
    exited,
    detached: options.detached ?? false,
  };
}

/** Sends `signal` to the child, or to its whole process group when it has one. */
export function signalServer(server: ServerProcess, signal: NodeJS.Signals): void {
  const pid = server.child.pid;
  if (server.detached && pid !== undefined) {
    try {
      process.kill(-pid, signal);
      return;
    } catch {
      // The group is gone already.
    }
  }
  server.child.kill(signal);
}

/**
 * Resolves once `probe` answers 200 (/readyz: the database is open); fails if the process exits first.
 * A start takes 6-9 s with the load average at 11 on two cores and went past 30 s at 21 (two crash
 * files side by side, beside other work): 90 s.
 */
export async function waitUntilReady(
  server: ServerProcess,
  probe = '/readyz',
  timeoutMs = 90_000,
): Promise<void> {
  let exit: number | string | null | undefined;
  void server.exited.then((code) => {
    exit = code;
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exit !== undefined) assert.fail(`server exited (${exit}) before it was ready:\n${server.output()}`);
    try {
      const response = await fetch(`${server.url}${probe}`);
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
  if (server.child.exitCode === null && server.child.signalCode === null) signalServer(server, signal);
  return server.exited;
}

/** The real server on one port that a test can SIGKILL (like a crash) and start again. */
export class ChildServer {
  readonly api: Api;
  private server: ServerProcess | undefined;
  private readonly cwd = mkdtempSync(path.join(tmpdir(), 'baas-child-'));

  constructor(
    readonly port: number,
    private readonly env: Record<string, string>,
    private readonly options: Pick<SpawnOptions, 'detached'> = {},
  ) {
    this.api = new Api(`http://127.0.0.1:${port}`);
  }

  /** The running process, if any. */
  get process(): ServerProcess | undefined {
    return this.server;
  }

  /** Starts the process (from an empty working directory, so no .env is read) and waits until ready. */
  async start(): Promise<void> {
    assert.equal(this.server, undefined, 'already running');
    const server = spawnServer(
      { ...this.env, PORT: String(this.port) },
      { cwd: this.cwd, detached: this.options.detached ?? false },
    );
    this.server = server;
    try {
      await waitUntilReady(server);
    } catch (error) {
      this.server = undefined;
      await stopServer(server);
      throw error;
    }
  }

  /** SIGKILL: no shutdown hook runs, in-flight deliveries and leases are abandoned. */
  async kill(): Promise<void> {
    await stopServer(this.server);
    this.server = undefined;
  }

  async dispose(): Promise<void> {
    await this.kill();
    rmSync(this.cwd, { recursive: true, force: true });
  }
}

export interface ScriptRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs one of the project's command-line scripts (`src/<name>.ts`, through tsx as `npm run` would
 * after building) on `database`, from its DATA_DIR, to its end (killed after a minute).
 */
export function runScript(
  database: TestDatabase,
  script: string,
  args: readonly string[] = [],
  extra: Record<string, string> = {},
): Promise<ScriptRun> {
  const env = serverEnv(database, { LOG_LEVEL: 'silent', ...extra });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, path.join(ROOT, 'src', script), ...args], {
      cwd: database.dataDir,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: database.dataDir, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += String(chunk);
    });
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
