import assert from 'node:assert/strict';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import pg from 'pg';
import type { Database } from '../../src/platform/db/schema.js';
import { type DialectName, TEST_DATABASE_URL } from './app.js';

/**
 * A Kysely of `dialect` that runs nothing: every statement a repository function sends through it is
 * recorded (its SQL and parameters exactly as compiled) and answered with no rows. So a test explains
 * the repositories' own statements, not copies of them. (`queryDirectly` knows no such handle, so the
 * prepared statements go through the executor too.)
 */
export function capturingDb(dialect: DialectName): { db: Kysely<Database>; queries: CompiledQuery[] } {
  const queries: CompiledQuery[] = [];
  const connection: DatabaseConnection = {
    executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
      queries.push(query);
      return { rows: [] };
    },
    // biome-ignore lint/correctness/useYield: nothing is streamed from a recording.
    streamQuery: async function* <R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
      queries.push(query);
    },
  };
  const driver: Driver = {
    init: async () => undefined,
    acquireConnection: async () => connection,
    beginTransaction: async () => undefined,
    commitTransaction: async () => undefined,
    rollbackTransaction: async () => undefined,
    releaseConnection: async () => undefined,
    destroy: async () => undefined,
  };
  const postgres = dialect === 'postgres';
  const db = new Kysely<Database>({
    dialect: {
      createAdapter: () => (postgres ? new PostgresAdapter() : new SqliteAdapter()),
      createDriver: () => driver,
      createIntrospector: (kysely) =>
        postgres ? new PostgresIntrospector(kysely) : new SqliteIntrospector(kysely),
      createQueryCompiler: () => (postgres ? new PostgresQueryCompiler() : new SqliteQueryCompiler()),
    },
  });
  return { db, queries };
}

/** The statements `run` sends through a capturing handle of `dialect` (see capturingDb). */
export async function statementsOf(
  dialect: DialectName,
  run: (db: Kysely<Database>) => Promise<unknown>,
): Promise<CompiledQuery[]> {
  const { db, queries } = capturingDb(dialect);
  // A function that needs a row (a count, a row it goes on from) fails on the recording's none:
  // what it sent until then is what it runs.
  await run(db).catch(() => undefined);
  assert.ok(queries.length > 0, 'the function sent no statement');
  return queries;
}

/** What a plan shows, reduced to what the tests judge. */
export interface PlanSummary {
  /** The plan as the database prints it, for failure messages. */
  text: string;
  /** Indexes read. */
  indexes: string[];
  /** What reads a table or index whole, or sorts: each a failure. */
  problems: string[];
}

// biome-ignore lint/suspicious/noExplicitAny: EXPLAIN (FORMAT JSON) nodes.
type PlanNode = Record<string, any>;

function summarizePostgres(root: PlanNode, bigTables: readonly string[]): PlanSummary {
  const indexes: string[] = [];
  const problems: string[] = [];
  const lines: string[] = [];
  const walk = (node: PlanNode, depth: number, underLimit: boolean) => {
    const type = node['Node Type'] as string;
    const relation = node['Relation Name'] as string | undefined;
    const index = node['Index Name'] as string | undefined;
    const filter = node['Filter'] as string | undefined;
    lines.push(
      `${'  '.repeat(depth)}${type}${relation ? ` on ${relation}` : ''}${index ? ` using ${index}` : ''}${
        node['Index Cond'] ? ` [${node['Index Cond']}]` : ''
      }${filter ? ` filter ${filter}` : ''}`,
    );
    if (index) indexes.push(index);
    if (type === 'Seq Scan') problems.push(`sequential scan of ${relation}`);
    if (type === 'Sort' || type === 'Incremental Sort') problems.push(`${type} (${node['Sort Key']})`);
    // An index read with no condition goes through the whole index in its order: fine for the rows a
    // Limit takes, not when it skips rows (a filter) or nothing stops it.
    const indexRead = type === 'Index Scan' || type === 'Index Only Scan' || type === 'Bitmap Index Scan';
    if (indexRead && !node['Index Cond'] && (relation === undefined || bigTables.includes(relation))) {
      if (filter) problems.push(`walk of the whole of ${index}, skipping rows (${filter})`);
      else if (!underLimit) problems.push(`read of the whole of ${index}`);
    }
    for (const child of (node['Plans'] as PlanNode[] | undefined) ?? [])
      walk(child, depth + 1, underLimit || type === 'Limit');
  };
  walk(root, 0, false);
  return { text: lines.join('\n'), indexes, problems };
}

function literal(client: pg.Client, value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'string') return client.escapeLiteral(value);
  if (value === null) return 'null';
  throw new Error(`no literal for ${typeof value}`);
}

/**
 * PostgreSQL's plans of a statement in `schema`: the custom plan (the parameters' values known) and
 * the generic one that a named statement settles on after five runs (`plan_cache_mode =
 * force_generic_plan`), where only the predicate's shape can pick the index. Sequential scans, bitmap
 * scans and sorts are switched off: over a few thousand rows reading the whole table, or fetching a
 * hundred rows and sorting them, is honestly cheapest, and hides whether an index would serve the
 * predicate and the order at volume. Switched off, they only cost more: one still in the plan means
 * the planner found no other way.
 */
export async function postgresPlans(
  schema: string,
  query: CompiledQuery,
  bigTables: readonly string[],
): Promise<{ custom: PlanSummary; generic: PlanSummary }> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    await client.query('set enable_seqscan = off');
    await client.query('set enable_bitmapscan = off');
    await client.query('set enable_sort = off');
    const plan = async (text: string, values?: unknown[]) =>
      summarizePostgres((await client.query(text, values)).rows[0]['QUERY PLAN'][0].Plan, bigTables);
    const custom = await plan(`explain (format json) ${query.sql}`, [...query.parameters]);
    await client.query('set plan_cache_mode = force_generic_plan');
    await client.query(`prepare planned as ${query.sql}`);
    const args = query.parameters.map((value) => literal(client, value)).join(', ');
    const generic = await plan(`explain (format json) execute planned${args ? `(${args})` : ''}`);
    return { custom, generic };
  } finally {
    await client.end();
  }
}

/** SQLite's plan (EXPLAIN QUERY PLAN) of a statement on `db`. */
export async function sqlitePlan(
  db: Kysely<Database>,
  query: CompiledQuery,
  bigTables: readonly string[],
): Promise<PlanSummary> {
  const { rows } = await db.executeQuery<{ detail: string }>({
    ...query,
    sql: `explain query plan ${query.sql}`,
  });
  const details = rows.map((row) => row.detail);
  const indexes = details.flatMap((detail) => {
    const match = / USING (?:COVERING )?INDEX (\w+)/.exec(detail);
    return match ? [match[1]!] : [];
  });
  // "SCAN t" reads the table, "SCAN t USING INDEX i" goes through all of an index in its order (what
  // it skips is not shown: a walk); a SEARCH is a range.
  const problems = details.flatMap((detail) => {
    if (/TEMP B-TREE/.test(detail)) return [detail];
    const scan = new RegExp(`^SCAN (${bigTables.join('|')})\\b( USING)?`).exec(detail);
    if (!scan) return [];
    return [scan[2] ? `walk: ${detail}` : detail];
  });
  return { text: details.join('\n'), indexes, problems };
}
