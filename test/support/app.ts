import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/database.js';
import type { Database } from '../../src/platform/db/schema.js';
import { TestClock } from './clock.js';
import { Api } from './http.js';
import { SmtpSink } from './smtp-sink.js';

export type DialectName = 'sqlite' | 'postgres';

export interface DialectCase {
  name: DialectName;
  /** Why this dialect's half is skipped (node:test prints it), or false. */
  skip: string | false;
}

export const TEST_DATABASE_URL =
  process.env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

async function postgresProblem(): Promise<string | false> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return false;
  } catch (error) {
    return `PostgreSQL not reachable at ${TEST_DATABASE_URL} (${(error as Error).message})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Whether PostgreSQL answers, asked up to three times when it is required: on a loaded machine a connection once took
 * over 3 s, and with REQUIRE_POSTGRES=1 a whole test file then failed before its first test.
 */
async function postgresProblemAfterRetries(): Promise<string | false> {
  const attempts = process.env['REQUIRE_POSTGRES'] === '1' ? 3 : 1;
  let problem: string | false = false;
  for (let attempt = 0; attempt < attempts; attempt++) {
    problem = await postgresProblem();
    if (!problem || attempt === attempts - 1) return problem;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  return problem;
}

const pgProblem = await postgresProblemAfterRetries();
if (pgProblem && process.env['REQUIRE_POSTGRES'] === '1') {
  throw new Error(`${pgProblem}; REQUIRE_POSTGRES=1 forbids skipping the PostgreSQL half`);
}

/** Every database test runs once per dialect, as Kysely's own suites do. */
export const DIALECTS: DialectCase[] = [
  { name: 'sqlite', skip: false },
  { name: 'postgres', skip: pgProblem ? `skipped: ${pgProblem}` : false },
];

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: TestClock;
}

export interface TestApp {
  app: FastifyInstance;
  api: Api;
  url: string;
  clock: TestClock;
  /** A separate connection to the same database, for asserting what was stored. */
  db: Kysely<Database>;
  /** The database itself, for another process on it (a second instance, a command-line script). */
  database: TestDatabase;
  /** Every log line the app wrote. */
  logs: string[];
  dataDir: string;
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * A fresh PostgreSQL schema per app, so test files run in parallel without sharing rows. Under
 * scripts/test.mjs its name carries the run's pid (BAAS_TEST_RUN), so that the runner drops whatever a
 * killed or timed-out file left.
 */
async function createPgSchema(): Promise<string> {
  const run = process.env['BAAS_TEST_RUN'];
  const schema = `t_${run && /^\d+$/.test(run) ? `${run}_` : ''}${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`create schema ${schema}`);
  } finally {
    await client.end();
  }
  return schema;
}

async function dropPgSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${schema} cascade`);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  env: Record<string, string>;
  pgSchema?: string;
  dataDir: string;
  /** Opens another handle on the same database. */
  open(): DatabaseHandle;
  drop(): Promise<void>;
}

/** A database (and DATA_DIR) of its own, which several app instances may share. */
export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'baas-test-'));
  if (dialect === 'postgres') {
    const pgSchema = await createPgSchema();
    return {
      env: { DATA_DIR: dataDir, DATABASE_URL: TEST_DATABASE_URL },
      pgSchema,
      dataDir,
      open: () => openDatabase(TEST_DATABASE_URL, { pgSchema, poolSize: 2 }),
      drop: async () => {
        await dropPgSchema(pgSchema);
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const url = `sqlite:${path.join(dataDir, 'baas.sqlite')}`;
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: url },
    dataDir,
    open: () => openDatabase(url),
    drop: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

export const TEST_ENCRYPTION_KEY = randomBytes(32).toString('base64');
export const TEST_ADMIN_KEY = 'test-admin-key-0123456789abcdefghijklmnop';
/** The sponsor bank connector's signing secret of every test app (test/support/bank.ts signs with it). */
export const TEST_CONNECTOR_SECRET = `whsec_${randomBytes(32).toString('base64')}`;

/** How long an app's close() may wait in a test before its connections are cut. */
const APP_CLOSE_MS = 5_000;

/**
 * app.close() that gives up waiting after `ms`, closing the connections still open: a request a test
 * left hanging (a held body, a webhook receiver that never answers) would otherwise keep the after()
 * hook, and with it the file, waiting until the file's timeout, and skip every cleanup after it.
 */
async function closeWithin(app: FastifyInstance, ms: number): Promise<void> {
  const closed = app.close();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<true>((resolve) => {
    timer = setTimeout(() => resolve(true), ms);
  });
  const tooLong = await Promise.race([closed.then(() => false), late]);
  clearTimeout(timer);
  if (!tooLong) return;
  app.server.closeAllConnections();
  process.stderr.write(`app.close() had not finished after ${ms} ms: its connections were closed\n`);
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 1_000))]);
}

/** Builds the real app (same buildApp as production) and listens on a loopback port. */
export async function startApp(
  database: TestDatabase,
  options: TestAppOptions = {},
): Promise<Omit<TestApp, 'db' | 'database' | 'close'> & { stop(): Promise<void> }> {
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    RATE_LIMIT_IP_PER_MINUTE: '0',
    DATA_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    ADMIN_API_KEY: TEST_ADMIN_KEY,
    BANK_CONNECTOR_SECRET: TEST_CONNECTOR_SECRET,
    // Nothing calls it until transfers; production configurations need one.
    BANK_CONNECTOR_URL: 'http://127.0.0.1:9',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    ...database.env,
    ...options.env,
  };
  const clock = options.clock ?? new TestClock();
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      callback();
    },
  });
  const app = await buildApp(loadConfig(env), {
    clock,
    logStream,
    ...(database.pgSchema ? { pgSchema: database.pgSchema } : {}),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    app,
    api: new Api(url),
    url,
    clock,
    logs,
    dataDir: database.dataDir,
    env,
    stop: () => closeWithin(app, APP_CLOSE_MS),
  };
}

/** One app on its own fresh database: what most tests want. */
export async function createTestApp(dialect: DialectName, options: TestAppOptions = {}): Promise<TestApp> {
  const database = await createTestDatabase(dialect);
  const started = await startApp(database, options).catch(async (error: unknown) => {
    await database.drop();
    throw error;
  });
  const handle = database.open();
  return {
    ...started,
    db: handle.db,
    database,
    close: async () => {
      await started.stop();
      await handle.close();
      await database.drop();
    },
  };
}

/** A suite's app and the SMTP sink its mail goes to; filled in by useApp's before() hook. */
export interface AppContext {
  dialect: DialectName;
  t: TestApp;
  sink: SmtpSink;
}

/**
 * Inside a describe(): an SMTP sink and an app on a fresh database of `dialect` that sends through
 * it, started in before() and closed in after(). Hooks registered after this one see them started.
 * `options` may be a function, called once the before() hooks registered earlier have run (e.g. to
 * point the app at a fake provider started there).
 */
export function useApp(
  dialect: DialectName,
  appOptions: TestAppOptions | (() => TestAppOptions) = {},
): AppContext {
  const context = { dialect } as AppContext;
  before(async () => {
    const options = typeof appOptions === 'function' ? appOptions() : appOptions;
    context.sink = await new SmtpSink().start();
    context.t = await createTestApp(dialect, {
      ...options,
      env: { SMTP_URL: context.sink.url, ...options.env },
    });
  });
  after(async () => {
    await context.t?.close();
    await context.sink?.stop();
  });
  return context;
}
