import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import {
  Kysely,
  PostgresDialect,
  type SqliteDatabase,
  SqliteDialect,
  type SqliteStatement,
  sql,
} from 'kysely';
import type pg from 'pg';
import { ensurePrivateFile, tightenMode } from '../storage/private-paths.js';
import { namedStatementPool } from './named-statements.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  /** The PostgreSQL schema in use when it is not the default one. */
  schema?: string;
  /** Resolves when a trivial query succeeds (readiness). */
  ping(): Promise<void>;
  /**
   * The connections now (metrics): PostgreSQL's pool; SQLite's one connection, used while a
   * transaction holds it (its waiters are Kysely's and not counted).
   */
  connections(): { max: number; used: number; idle?: number; waiting?: number };
  /**
   * Keeps the planner's statistics current: SQLite gathers none by itself, so at start-up and with
   * housekeeping `PRAGMA optimize` re-analyzes (a sample of ANALYSIS_LIMIT rows an index) the tables
   * whose size has changed much since; PostgreSQL's autovacuum does it there, so nothing.
   */
  optimize(): Promise<void>;
  /**
   * PostgreSQL: cancels the statements the backends `pids` are running (pg_cancel_backend, on a
   * connection of its own: the pool may be full of the very statements to cancel). Undefined on
   * SQLite, whose statements run to completion synchronously.
   */
  cancel?: (pids: readonly number[]) => Promise<void>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** PostgreSQL schema to use as search_path (tests isolate each app in its own schema). */
  pgSchema?: string;
  poolSize?: number;
  /** PostgreSQL: each statement's limit (lock waits included) in ms; unset or 0: none. */
  statementTimeoutMs?: number;
  /** PostgreSQL: the longest wait for a pooled connection (or a new one's connect) in ms; unset: no limit. */
  poolTimeoutMs?: number;
  /** Told about a pooled PostgreSQL connection that failed while idle (the pool has dropped it). */
  onIdleError?: (error: Error) => void;
  /** Told when a read was run again on a fresh connection after its own died (named-statements.ts). */
  onReadRetried?: (error: unknown) => void;
}

const PG_INT8 = 20;
const PG_NUMERIC = 1700;

/**
 * The PostgreSQL driver, loaded when a PostgreSQL database is opened: a SQLite deployment does not
 * carry it in memory (2.4 MiB of heap).
 */
const postgresDriver = (): typeof pg => createRequire(import.meta.url)('pg') as typeof pg;

/** bigint columns hold epoch milliseconds and kobo, both far below 2^53: read them as numbers. */
const pgTypes = (driver: typeof pg) =>
  ({
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === PG_INT8 || oid === PG_NUMERIC) return (value: string) => Number(value);
      return driver.types.getTypeParser(oid, format);
    },
  }) as pg.CustomTypesConfig;

const STATEMENT_CACHE_SIZE = 500;

/** Rows SQLite's ANALYZE samples an index: milliseconds on any size, and estimates good enough to plan by. */
const ANALYSIS_LIMIT = 1000;

/** What a rollback of a transaction SQLite already rolled back runs instead: nothing. */
const ROLLED_BACK: SqliteStatement = {
  reader: false,
  all: () => [],
  run: () => ({ changes: 0, lastInsertRowid: 0 }),
  iterate: () => [][Symbol.iterator](),
};

/**
 * Kysely prepares every query anew, and parsing the SQL was the largest cost of a simple read.
 * The service issues a small, fixed set of statements, so they are kept prepared by their text.
 * Safe because better-sqlite3 runs each statement synchronously to completion.
 */
function withStatementCache(sqlite: SQLite.Database): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      // SQLite rolls a transaction back by itself on some errors (SQLITE_FULL on a full disk): the
      // rollback Kysely then sends would fail and hide the error that explains the failure.
      if (text === 'rollback' && !sqlite.inTransaction) return ROLLED_BACK;
      let statement = statements.get(text);
      if (!statement) {
        if (statements.size >= STATEMENT_CACHE_SIZE)
          statements.delete(statements.keys().next().value as string);
        statement = sqlite.prepare(text);
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

/** Runs a statement at once, or undefined when it must go through Kysely (see `queryDirectly`). */
type DirectQuery = (
  text: string,
  parameters: readonly unknown[],
) => unknown[] | Promise<unknown[]> | undefined;
const directQueries = new WeakMap<Kysely<Database>, DirectQuery>();

/**
 * The rows of one statement on the root handle, run on the driver directly instead of through
 * Kysely's executor, whose connection handling and promises cost as much as a cheap statement.
 * SQLite: reads only, synchronously on the connection, and only outside a transaction (a statement
 * run while one is open would run inside it). PostgreSQL: any statement, on the pool (`pool.query`,
 * named as Kysely's would be), atomic on its own. Undefined otherwise, and on a transaction's own
 * handle: the caller goes through Kysely.
 */
export function queryDirectly(
  db: Kysely<Database>,
  text: string,
  parameters: readonly unknown[],
): unknown[] | Promise<unknown[]> | undefined {
  return directQueries.get(db)?.(text, parameters);
}

/** Runs statements at once, or false when they must wait their turn (see `writeDirectly`). */
type DirectWriter = (queries: ReadonlyArray<{ sql: string; parameters: readonly unknown[] }>) => boolean;
const directWriters = new WeakMap<Kysely<Database>, DirectWriter>();

/**
 * Runs writes on SQLite synchronously on the connection, several in one transaction of their own,
 * instead of through Kysely's driver. As `queryDirectly` on SQLite: only on the root handle while no
 * transaction is open (a statement run now would otherwise land inside it); false then, and on
 * PostgreSQL, and the caller goes through Kysely. Errors (a unique violation) are thrown as the
 * driver would, after the transaction is rolled back.
 */
export function writeDirectly(
  db: Kysely<Database>,
  queries: ReadonlyArray<{ sql: string; parameters: readonly unknown[] }>,
): boolean {
  return directWriters.get(db)?.(queries) ?? false;
}

/** How a SQLite root handle lets one of its transactions run statements on the connection. */
const transactionDirect = new WeakMap<Kysely<Database>, { query: DirectQuery; write: DirectWriter }>();

/**
 * Inside `trx`, a transaction of `root` on SQLite, lets `queryDirectly` and `writeDirectly` run its
 * statements synchronously on the connection (any statement, none wrapped in a transaction of its
 * own) until `run` settles: Kysely's driver holds SQLite's one connection for the transaction, so
 * nothing else runs a statement in between, and the promise and executor per statement are saved.
 * PostgreSQL's transactions keep their client through Kysely.
 */
export async function withDirectStatements<T>(
  root: Kysely<Database>,
  trx: Kysely<Database>,
  run: () => Promise<T>,
): Promise<T> {
  const direct = transactionDirect.get(root);
  if (!direct) return run();
  directQueries.set(trx, direct.query);
  directWriters.set(trx, direct.write);
  try {
    return await run();
  } finally {
    directQueries.delete(trx);
    directWriters.delete(trx);
  }
}

export function dialectOfUrl(url: string): Dialect {
  return url.startsWith('postgres') ? 'postgres' : 'sqlite';
}

/** The schema named by `?options=-c search_path=<schema>` in a PostgreSQL URL, if any. */
function searchPathOf(url: string): string | undefined {
  const options = URL.canParse(url) ? new URL(url).searchParams.get('options') : null;
  return options ? /(?:^|\s)-c\s*search_path=([A-Za-z_][A-Za-z0-9_]*)/.exec(options)?.[1] : undefined;
}

export function openDatabase(url: string, options: OpenDatabaseOptions = {}): DatabaseHandle {
  return dialectOfUrl(url) === 'postgres'
    ? openPostgres(url, options)
    : openSqlite(url.slice('sqlite:'.length));
}

function openPostgres(url: string, options: OpenDatabaseOptions): DatabaseHandle {
  const schema = options.pgSchema ?? searchPathOf(url);
  const driver = postgresDriver();
  const settings: pg.PoolConfig = {
    connectionString: url,
    max: options.poolSize ?? 10,
    types: pgTypes(driver),
    // Names the service's connections in pg_stat_activity, unless the URL's application_name does.
    fallback_application_name: 'baas-partner-api',
    ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
    ...(options.poolTimeoutMs ? { connectionTimeoutMillis: options.poolTimeoutMs } : {}),
    ...(options.pgSchema ? { options: `-c search_path=${options.pgSchema}` } : {}),
  };
  const pool = new driver.Pool(settings);
  // An 'error' event without a listener ends the process. The pool emits one when an idle
  // connection dies (server restart, failover, pg_terminate_backend) and has already dropped it.
  // A checked-out connection that dies between queries emits on the client: its next query fails
  // and reports it, and the pool discards the client on release.
  pool.on('error', (error) => options.onIdleError?.(error));
  pool.on('connect', (client) => client.on('error', () => undefined));
  const max = options.poolSize ?? 10;
  const fresh = async () => {
    const client = new driver.Client(settings);
    client.on('error', () => undefined);
    await client.connect();
    return client;
  };
  const named = namedStatementPool(pool, {
    fresh,
    ...(options.onReadRetried ? { onRetry: options.onReadRetried } : {}),
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: named }) });
  directQueries.set(db, named.run);
  return {
    db,
    dialect: 'postgres',
    ...(schema ? { schema } : {}),
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    connections: () => ({
      max,
      used: pool.totalCount - pool.idleCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
    }),
    optimize: async () => undefined,
    cancel: async (pids) => {
      const client = await fresh();
      try {
        await client.query('select pg_cancel_backend(pid) from unnest($1::int[]) as pid', [[...pids]]);
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    close: () => db.destroy(),
  };
}

/** `file`: a path, or `:memory:`. */
function openSqlite(file: string): DatabaseHandle {
  if (file !== ':memory:') {
    mkdirSync(path.dirname(path.resolve(file)), { recursive: true, mode: 0o700 });
    // SQLite creates a database 0644 but its -wal and -shm files with the database file's mode.
    ensurePrivateFile(file);
  }
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  if (file !== ':memory:') {
    // Left looser by an earlier version: SQLite keeps the mode of files that exist.
    for (const suffix of ['-wal', '-shm']) tightenMode(`${file}${suffix}`, 0o600);
  }
  // NORMAL keeps every commit across a process crash (SIGKILL); only power loss may drop the last ones.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma(`analysis_limit = ${ANALYSIS_LIMIT}`);
  const database = withStatementCache(sqlite);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  directQueries.set(db, (text, parameters) => {
    if (sqlite.inTransaction) return undefined;
    const statement = database.prepare(text) as SQLite.Statement;
    return statement.reader ? (statement.all(parameters) as unknown[]) : undefined;
  });
  const write = (query: Parameters<DirectWriter>[0][number]) =>
    (database.prepare(query.sql) as SQLite.Statement).run(query.parameters);
  const writeAll = sqlite.transaction((queries: Parameters<DirectWriter>[0]) => queries.forEach(write));
  directWriters.set(db, (queries) => {
    if (sqlite.inTransaction) return false;
    if (queries.length === 1) write(queries[0]!);
    else writeAll(queries);
    return true;
  });
  transactionDirect.set(db, {
    query: (text, parameters) => {
      const statement = database.prepare(text) as SQLite.Statement;
      if (statement.reader) return statement.all(parameters) as unknown[];
      statement.run(parameters);
      return [];
    },
    write: (queries) => {
      queries.forEach(write);
      return true;
    },
  });
  return {
    db,
    dialect: 'sqlite',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    connections: () => ({ max: 1, used: sqlite.open && sqlite.inTransaction ? 1 : 0 }),
    optimize: async () => {
      // 0x10002: every table, not only those this connection has queried (SQLite's advice for a
      // long-lived connection, which this one is); it analyzes only where the estimates are stale.
      await sql`pragma optimize = 0x10002`.execute(db);
    },
    close: async () => {
      await db.destroy();
      // Kysely's driver starts with its first query, and only a started one is closed by destroy().
      if (sqlite.open) sqlite.close();
    },
  };
}
