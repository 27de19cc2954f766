import {
  type Compilable,
  CompiledQuery,
  type Insertable,
  isOperationNodeSource,
  type Kysely,
  type OperationNode,
  PostgresAdapter,
  type QueryCreator,
  RawNode,
  ValueNode,
} from 'kysely';
import type { Database } from './schema.js';

/** Rows for one table, to be inserted with the rest of a batch. */
export interface BatchInsert<T extends keyof Database = keyof Database> {
  table: T;
  rows: ReadonlyArray<Insertable<Database[T]>>;
}

/** A batch entry, type-checked against its table. */
export const rowsOf = <T extends keyof Database>(
  table: T,
  rows: ReadonlyArray<Insertable<Database[T]>>,
): BatchInsert => ({ table, rows }) as unknown as BatchInsert;

/**
 * The batch as a change of its own (no transaction around it): one statement on PostgreSQL is
 * atomic by itself; SQLite writes table by table, so more than one table gets a transaction.
 */
export async function insertBatchAtomically(
  db: Kysely<Database>,
  batch: readonly BatchInsert[],
): Promise<void> {
  const tables = batch.filter((entry) => entry.rows.length > 0).length;
  if (tables <= 1 || db.getExecutor().adapter instanceof PostgresAdapter) await insertBatch(db, batch);
  else await db.transaction().execute((trx) => insertBatch(trx, batch));
}

/** Compiled batches by dialect and shape; null for a shape whose parameters are not its values. */
const compiledByDialect = new Map<unknown, Map<string, string | null>>();
const MAX_SHAPES = 512;

/**
 * The key of a `sql` expression's text, its parameters appended to `values` in the order Kysely's
 * compiler emits them (fragment, parameter, fragment…, nested `sql` expanded in place); undefined for
 * anything else (a builder, an inlined literal), which is never cached.
 */
function rawKey(node: OperationNode, values: unknown[]): string | undefined {
  if (ValueNode.is(node) && !node.immediate) {
    values.push(node.value);
    return '?';
  }
  if (!RawNode.is(node)) return undefined;
  let key = '(';
  for (let index = 0; index < node.sqlFragments.length; index++) {
    key += JSON.stringify(node.sqlFragments[index]);
    const parameter = node.parameters[index];
    if (parameter === undefined) continue;
    const inner = rawKey(parameter, values);
    if (inner === undefined) return undefined;
    key += inner;
  }
  return `${key})`;
}

/**
 * The shape of a batch (each table with its columns, in Kysely's order: as they first appear among
 * the rows, its number of rows, the text of any `sql` expression among the values) and its values in
 * the order of the compiled parameters; undefined when Kysely would not make every value a parameter
 * (a row without one of the columns gets DEFAULT, a query builder or literal is inlined).
 */
function shapeAndValues(inserts: readonly BatchInsert[]): { shape: string; values: unknown[] } | undefined {
  let shape = '';
  const values: unknown[] = [];
  for (const { table, rows } of inserts) {
    const columns: string[] = [];
    for (const row of rows as ReadonlyArray<Record<string, unknown>>) {
      for (const column of Object.keys(row))
        if (row[column] !== undefined && !columns.includes(column)) columns.push(column);
    }
    let expressions = '';
    for (const [index, row] of (rows as ReadonlyArray<Record<string, unknown>>).entries()) {
      for (const column of columns) {
        const value = row[column];
        if (value === undefined || typeof value === 'function') return undefined;
        if (!isOperationNodeSource(value)) {
          values.push(value);
          continue;
        }
        const key = rawKey(value.toOperationNode(), values);
        if (key === undefined) return undefined;
        expressions += `${index}.${column}=${key};`;
      }
    }
    shape += `${table}(${columns.join(',')})x${rows.length}${expressions && `{${expressions}}`};`;
  }
  return { shape, values };
}

/** The batch's insert: data-modifying CTEs on PostgreSQL, one statement per table on SQLite. */
function buildInsert(db: Kysely<Database>, inserts: readonly BatchInsert[]): Compilable {
  // The rows of each entry were checked against its table by rowsOf; `never` carries them past the
  // builder's per-table typing, which a table name chosen at run time cannot satisfy.
  const last = inserts.at(-1)!;
  let query: QueryCreator<Database> = db;
  inserts.slice(0, -1).forEach(({ table, rows }, index) => {
    // The CTEs are only written to, never read: the builder's added table types are not needed.
    query = query.with(`batch_${index}`, (qb) =>
      qb.insertInto(table).values(rows as never),
    ) as unknown as QueryCreator<Database>;
  });
  return query.insertInto(last.table).values(last.rows as never);
}

/**
 * Runs the insert of `inserts` (one table, or several as CTEs on PostgreSQL). Building and compiling
 * an insert with Kysely cost more than SQLite took to write it (12 µs for 20 columns), so its SQL is
 * compiled once per shape and reused with the new values. A shape is kept only when the compiled
 * parameters are exactly its values in order (plain values and `sql` expressions, no defaults).
 */
async function runInsert(db: Kysely<Database>, inserts: readonly BatchInsert[]): Promise<void> {
  const dialect = db.getExecutor().adapter.constructor;
  let compiled = compiledByDialect.get(dialect);
  if (!compiled) {
    compiled = new Map();
    compiledByDialect.set(dialect, compiled);
  }
  const batch = shapeAndValues(inserts);
  const sqlText = batch && compiled.get(batch.shape);
  if (batch && sqlText) {
    await db.executeQuery(CompiledQuery.raw(sqlText, batch.values));
    return;
  }
  const query = buildInsert(db, inserts).compile();
  if (batch && sqlText === undefined && compiled.size < MAX_SHAPES) {
    const { parameters } = query;
    const same =
      parameters.length === batch.values.length &&
      parameters.every((parameter, index) => parameter === batch.values[index]);
    compiled.set(batch.shape, same ? query.sql : null);
  }
  await db.executeQuery(query);
}

/**
 * Inserts every row of the batch. PostgreSQL gets one statement (data-modifying CTEs: atomic on its
 * own, one round trip whatever the number of tables); SQLite, in-process, gets one statement per
 * table. Call inside the transaction of the change, or alone when the batch is the whole change.
 */
export async function insertBatch(db: Kysely<Database>, batch: readonly BatchInsert[]): Promise<void> {
  const inserts = batch.filter((entry) => entry.rows.length > 0);
  if (inserts.length === 0) return;
  if (inserts.length === 1 || !(db.getExecutor().adapter instanceof PostgresAdapter)) {
    for (const entry of inserts) await runInsert(db, [entry]);
    return;
  }
  await runInsert(db, inserts);
}
