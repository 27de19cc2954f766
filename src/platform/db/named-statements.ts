import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { ClientGoneError, currentQueryScope } from './query-scope.js';

/** Distinct statement texts given a name, per process: each pooled connection may prepare each once. */
const MAX_NAMED = 256;
/** Texts seen once are remembered up to this many; then forgotten, so one-off texts cannot pile up. */
const MAX_SEEN_ONCE = 2048;

/**
 * What node-postgres reports for a connection that died under it: the server ended it (57P01
 * `pg_terminate_backend`, a restart; 57P02), a connection-class SQLSTATE, the socket reset, or its own
 * words. Not a pool-wait timeout: another connection would not come sooner.
 */
export function isConnectionLost(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === '57P01' || code === '57P02' || code === 'ECONNRESET' || code === 'EPIPE') return true;
  if (typeof code === 'string' && code.startsWith('08')) return true;
  return (
    typeof message === 'string' &&
    /^(Connection terminated|Client has encountered a connection error)/.test(message)
  );
}

/** A plain read: safe to run again, it changed nothing whether or not it reached the server. */
const READ = /^\s*select\b/i;
const LOCKING_READ = /\bfor\s+(update|no\s+key\s+update|share|key\s+share)\b/i;
const isRead = (text: string): boolean => READ.test(text) && !LOCKING_READ.test(text);
const BEGIN = /^\s*(begin|start\s+transaction)\b/i;
const END = /^\s*(commit|rollback)\s*$/i;

export interface NamedStatementOptions {
  /**
   * A new connection outside the pool, configured as the pool's, for running a statement again: the
   * pool's idle connections may be dead too (all were ended at once) and not known to be yet.
   */
  fresh?: () => Promise<pg.Client>;
  /** Told when a statement was run again on a fresh connection after its connection died. */
  onRetry?: (error: unknown) => void;
}

/** The pool as Kysely takes it, and `run`: a statement on the pool directly, named alike. */
export interface NamedStatementPool extends PostgresPool {
  /** Runs one statement on a pooled connection (pg's `pool.query`) and gives its rows. */
  run(text: string, parameters: readonly unknown[]): Promise<unknown[]>;
}

/**
 * PostgreSQL parses and plans every unnamed statement anew. For the service's statements with
 * parameters that was most of a request's database time (the session + profile read: 557 µs a round
 * trip unnamed, 216 µs named, measured sequentially). So a text seen a second time gets a name, and
 * each pooled connection parses it once and keeps its plan (node-postgres remembers which names a
 * connection has prepared). Texts that vary with their input (an IN list's length, a batch's row count)
 * would each take a name: at most MAX_NAMED texts are named, and any other runs unnamed as before.
 * Statements without parameters (BEGIN, COMMIT, migrations) stay on the simple protocol.
 */
export function namedStatementPool(pool: pg.Pool, options: NamedStatementOptions = {}): NamedStatementPool {
  const names = new Map<string, string>();
  const seenOnce = new Set<string>();
  const nameOf = (text: string): string | undefined => {
    const name = names.get(text);
    if (name !== undefined || names.size >= MAX_NAMED) return name;
    if (!seenOnce.delete(text)) {
      if (seenOnce.size >= MAX_SEEN_ONCE) seenOnce.clear();
      seenOnce.add(text);
      return undefined;
    }
    const given = `baas_${names.size + 1}`;
    names.set(text, given);
    return given;
  };
  const config = (text: string, parameters: ReadonlyArray<unknown> | undefined): pg.QueryConfig => {
    const values = parameters ? [...parameters] : [];
    const name = values.length > 0 ? nameOf(text) : undefined;
    return name ? { name, text, values } : { text, values };
  };

  const { fresh } = options;
  /**
   * Runs one statement on `client`, known to its request's query scope while it runs (so that it can
   * be cancelled once the client has gone); refused at once when the client has already gone.
   */
  const tracked = async (client: pg.ClientBase, query: pg.QueryConfig): Promise<pg.QueryResult> => {
    const scope = currentQueryScope();
    if (!scope) return client.query(query);
    if (scope.gone) throw new ClientGoneError();
    const pid = (client as pg.ClientBase & { processID: number | null }).processID;
    if (pid !== null) scope.running.add(pid);
    try {
      return await client.query(query);
    } finally {
      if (pid !== null) scope.running.delete(pid);
    }
  };
  /** A fresh connection that ends on release, in the shape of a pooled one. */
  const freshClient = async (): Promise<pg.PoolClient> => {
    const client = await fresh!();
    return Object.assign(client, {
      release: () => {
        client.end().catch(() => undefined);
      },
    }) as unknown as pg.PoolClient;
  };

  return {
    /**
     * A connection for Kysely (a statement, or a transaction from BEGIN to COMMIT). When it turns
     * out dead (pg_terminate_backend, a failover: the pool had not yet noticed) under a plain read
     * outside a transaction, or under BEGIN itself, the statement is run once more on a fresh
     * connection (opened for it, ended on release): nothing had happened yet. Never a write, nor anything inside a transaction
     * already begun: that one fails (503 SERVICE_UNAVAILABLE) and the client retries it.
     */
    async connect(): Promise<PostgresPoolClient> {
      let client = await pool.connect();
      let inTransaction = false;
      async function run(text: string, parameters: ReadonlyArray<unknown> | undefined) {
        const retryable = fresh && !inTransaction && (isRead(text) || BEGIN.test(text));
        let result: pg.QueryResult;
        try {
          result = await tracked(client, config(text, parameters));
        } catch (error) {
          if (!retryable || !isConnectionLost(error)) throw error;
          client.release(error as Error);
          client = await freshClient();
          result = await tracked(client, config(text, parameters));
          options.onRetry?.(error);
        }
        if (BEGIN.test(text)) inTransaction = true;
        else if (END.test(text)) inTransaction = false;
        return result;
      }
      function query<R>(text: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
      function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
      function query(text: string | PostgresCursor<unknown>, parameters?: ReadonlyArray<unknown>): unknown {
        // A cursor (a streamed read) is a submittable of its own, passed through.
        if (typeof text !== 'string') return client.query(text as unknown as pg.Submittable);
        return run(text, parameters);
      }
      return { query, release: () => client.release() };
    },
    /** As `connect`'s statements: a plain read whose connection died is run once more. */
    run: async (text, parameters) => {
      const query = config(text, parameters);
      try {
        if (!currentQueryScope()) return (await pool.query(query)).rows;
        // As pool.query, with the connection known to the request's query scope.
        const client = await pool.connect();
        let failure: Error | undefined;
        try {
          return (await tracked(client, query)).rows;
        } catch (error) {
          failure = error as Error;
          throw error;
        } finally {
          client.release(failure !== undefined && isConnectionLost(failure) ? failure : undefined);
        }
      } catch (error) {
        if (!fresh || !isRead(text) || !isConnectionLost(error)) throw error;
        const client = await freshClient();
        try {
          const { rows } = await tracked(client, query);
          options.onRetry?.(error);
          return rows;
        } finally {
          client.release();
        }
      }
    },
    end: () => pool.end(),
  };
}
