import {
  type Compilable,
  CompiledQuery,
  type InsertObject,
  isOperationNodeSource,
  type Kysely,
  type OperationNode,
  type QueryCreator,
  RawNode,
  sql,
  ValueNode,
} from 'kysely';
import { queryDirectly, writeDirectly } from './database.js';
import { isPostgresDb } from './dialect.js';
import type { Database } from './schema.js';

/** Rows for one table (values, or `sql` expressions), to be inserted with the rest of a batch. */
export interface BatchInsert<T extends keyof Database = keyof Database> {
  table: T;
  rows: ReadonlyArray<InsertObject<Database, T>>;
}

/** A batch entry, type-checked against its table. */
export const rowsOf = <T extends keyof Database>(
  table: T,
  rows: ReadonlyArray<InsertObject<Database, T>>,
): BatchInsert => ({ table, rows }) as unknown as BatchInsert;

/**
 * The batch as a change of its own (no transaction around it): one statement on PostgreSQL is
 * atomic by itself; SQLite writes table by table, so more than one table gets a transaction. On
 * SQLite, once every table's insert is compiled, the statements run at once on the connection, in a
 * transaction of their own (see `writeDirectly`), instead of through Kysely's driver and its own
 * transaction, whose connection lock and promises cost more than the writes.
 */
export async function insertBatchAtomically(
  db: Kysely<Database>,
  batch: readonly BatchInsert[],
): Promise<void> {
  const inserts = batch.filter((entry) => entry.rows.length > 0);
  if (inserts.length === 0) return;
  if (isPostgresDb(db)) {
    await execute(db, compileInsert(db, inserts));
    return;
  }
  const statements = inserts.map((entry) => compileInsert(db, [entry]));
  if (writeDirectly(db, statements)) return;
  if (statements.length === 1) await execute(db, statements[0]!);
  else await db.transaction().execute((trx) => insertBatch(trx, inserts));
}

/**
 * A batch's shape is the path of its keys through a tree: each table's name, number of rows and
 * columns (in Kysely's order: as they first appear among the rows), then where its `sql` expressions
 * are and which they are. A node reached by a whole shape holds its compiled SQL, or null when the
 * compiled parameters are not the shape's values. Column names are interned strings and expressions
 * are known by number, so finding a shape is a few map lookups: no key text is built and hashed.
 */
interface ShapeNode {
  next: Map<unknown, ShapeNode>;
  sql?: string | null;
}
const shapesByDialect = new Map<unknown, { root: ShapeNode; count: number }>();
const MAX_SHAPES = 512;

const COLUMNS_END = Symbol('columns end');
const EXPRESSION = Symbol('expression');
const VALUE = Symbol('value');
const EXPRESSION_END = Symbol('expression end');

/** The text of a `sql` template's fragments, by number: one template site keeps its fragments array. */
const fragmentIds = new WeakMap<readonly string[], number>();
const idsByText = new Map<string, number>();
const MAX_TEXTS = 1024;

function fragmentsId(fragments: readonly string[]): number | undefined {
  let id = fragmentIds.get(fragments);
  if (id === undefined) {
    const text = JSON.stringify(fragments);
    id = idsByText.get(text);
    if (id === undefined) {
      // Texts made at run time (sql.raw) could grow the table without end: those are not cached.
      if (idsByText.size >= MAX_TEXTS) return undefined;
      id = idsByText.size;
      idsByText.set(text, id);
    }
    fragmentIds.set(fragments, id);
  }
  return id;
}

/**
 * A `sql` expression's keys (its fragments' number, a marker per parameter, nested expressions in
 * place) and its parameters appended to `values` in the order Kysely's compiler emits them; false for
 * anything else (a builder, an inlined literal), which is never cached.
 */
function expressionKeys(node: OperationNode, keys: unknown[], values: unknown[]): boolean {
  if (ValueNode.is(node) && !node.immediate) {
    keys.push(VALUE);
    values.push(node.value);
    return true;
  }
  if (!RawNode.is(node)) return false;
  const id = fragmentsId(node.sqlFragments);
  if (id === undefined) return false;
  keys.push(id);
  for (const parameter of node.parameters) if (!expressionKeys(parameter, keys, values)) return false;
  keys.push(EXPRESSION_END);
  return true;
}

/** The columns of an entry's rows: those with a value, in the order they first appear. */
function columnsOf(rows: ReadonlyArray<Record<string, unknown>>): string[] {
  const columns: string[] = [];
  for (const row of rows) {
    for (const column in row) {
      if (row[column] !== undefined && (rows.length === 1 || !columns.includes(column))) columns.push(column);
    }
  }
  return columns;
}

/**
 * The keys of a batch's shape and its values in the order of the compiled parameters; undefined when
 * Kysely would not make every value a parameter (a row without one of the columns gets DEFAULT, a
 * query builder or literal is inlined).
 */
function shapeOf(inserts: readonly BatchInsert[]): { keys: unknown[]; values: unknown[] } | undefined {
  const keys: unknown[] = [];
  const values: unknown[] = [];
  for (const { table, rows } of inserts) {
    const records = rows as ReadonlyArray<Record<string, unknown>>;
    const columns = columnsOf(records);
    keys.push(table, records.length, ...columns, COLUMNS_END);
    for (let index = 0; index < records.length; index++) {
      const row = records[index]!;
      for (const column of columns) {
        const value = row[column];
        if (value === undefined || typeof value === 'function') return undefined;
        if (!isOperationNodeSource(value)) {
          values.push(value);
          continue;
        }
        keys.push(EXPRESSION, index, column);
        if (!expressionKeys(value.toOperationNode(), keys, values)) return undefined;
      }
    }
  }
  return { keys, values };
}

/** The node of a shape, made on the way when `make` (else undefined at the first missing step). */
function nodeOf(root: ShapeNode, keys: readonly unknown[], make: boolean): ShapeNode | undefined {
  let node = root;
  for (const key of keys) {
    let next = node.next.get(key);
    if (!next) {
      if (!make) return undefined;
      next = { next: new Map() };
      node.next.set(key, next);
    }
    node = next;
  }
  return node;
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
 * The SQL of `inserts` (one table, or several as CTEs on PostgreSQL) with its parameters. Building and
 * compiling an insert with Kysely cost more than SQLite took to write it (12 µs for 20 columns), so
 * its SQL is compiled once per shape and reused with the new values. A shape is kept only when the
 * compiled parameters are exactly its values in order (plain values and `sql` expressions, no defaults).
 */
function compileInsert(db: Kysely<Database>, inserts: readonly BatchInsert[]): Statement {
  const dialect = db.getExecutor().adapter.constructor;
  let shapes = shapesByDialect.get(dialect);
  if (!shapes) {
    shapes = { root: { next: new Map() }, count: 0 };
    shapesByDialect.set(dialect, shapes);
  }
  const shape = shapeOf(inserts);
  const known = shape && nodeOf(shapes.root, shape.keys, false)?.sql;
  if (shape && known) return { sql: known, parameters: shape.values };
  const query = buildInsert(db, inserts).compile();
  if (shape && known === undefined && shapes.count < MAX_SHAPES) {
    const { parameters } = query;
    const same =
      parameters.length === shape.values.length &&
      parameters.every((parameter, index) => parameter === shape.values[index]);
    nodeOf(shapes.root, shape.keys, true)!.sql = same ? query.sql : null;
    shapes.count += 1;
  }
  return { sql: query.sql, parameters: query.parameters };
}

interface Statement {
  sql: string;
  parameters: readonly unknown[];
}

/** On the driver directly where it can (the root handle on PostgreSQL, see `queryDirectly`), else through Kysely. */
const execute = async (db: Kysely<Database>, { sql, parameters }: Statement): Promise<unknown> =>
  queryDirectly(db, sql, parameters) ?? db.executeQuery(CompiledQuery.raw(sql, parameters as unknown[]));

/**
 * Inserts every row of the batch. PostgreSQL gets one statement (data-modifying CTEs: atomic on its
 * own, one round trip whatever the number of tables); SQLite, in-process, gets one statement per
 * table. Call inside the transaction of the change, or alone when the batch is the whole change.
 */
export async function insertBatch(db: Kysely<Database>, batch: readonly BatchInsert[]): Promise<void> {
  const inserts = batch.filter((entry) => entry.rows.length > 0);
  if (inserts.length === 0) return;
  if (isPostgresDb(db)) {
    await execute(db, compileInsert(db, inserts));
    return;
  }
  for (const entry of inserts) await execute(db, compileInsert(db, [entry]));
}

/**
 * A change that holds only if a conditional UPDATE matches a row: the guard (`build`, whose compiled
 * parameters are exactly `parameters`) and `run`, the same UPDATE for use inside a transaction.
 */
export interface Guard {
  /** Names the guard's SQL in the compiled-shape cache: one name, one UPDATE text. */
  name: string;
  parameters: readonly unknown[];
  build(db: Kysely<Database>): Compilable;
  /** The guard in a transaction: whether it matched. */
  run(db: Kysely<Database>): Promise<boolean>;
}

const GUARD = Symbol('guard');
/** SQLSTATE division_by_zero: how the guarded statement refuses (see insertBatchGuarded). */
const GUARD_REFUSED = '22012';

/**
 * PostgreSQL: the guard and every insert of the batch in one statement (data-modifying CTEs), so the
 * rows exist only with the change they depend on, in one round trip and no transaction. The
 * statement's result divides by the number of rows the guard matched: when it matched none the
 * statement fails as a whole (division by zero) and nothing is written. False then. Compiled once per
 * guard and batch shape, like insertBatch.
 */
export async function insertBatchGuarded(
  db: Kysely<Database>,
  guard: Guard,
  batch: readonly BatchInsert[],
): Promise<boolean> {
  const inserts = batch.filter((entry) => entry.rows.length > 0);
  const statement = compileGuarded(db, guard, inserts);
  try {
    await execute(db, statement);
    return true;
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === GUARD_REFUSED) return false;
    throw error;
  }
}

function compileGuarded(db: Kysely<Database>, guard: Guard, inserts: readonly BatchInsert[]): Statement {
  const dialect = db.getExecutor().adapter.constructor;
  let shapes = shapesByDialect.get(dialect);
  if (!shapes) {
    shapes = { root: { next: new Map() }, count: 0 };
    shapesByDialect.set(dialect, shapes);
  }
  const shape = shapeOf(inserts);
  const keys = shape && [GUARD, guard.name, ...shape.keys];
  const values = shape && [...guard.parameters, ...shape.values];
  const known = keys && nodeOf(shapes.root, keys, false)?.sql;
  if (values && known) return { sql: known, parameters: values };
  let query: QueryCreator<Database> = db.with(
    'guard',
    () => guard.build(db) as never,
  ) as unknown as QueryCreator<Database>;
  inserts.forEach(({ table, rows }, index) => {
    query = query.with(`batch_${index}`, (qb) =>
      qb.insertInto(table).values(rows as never),
    ) as unknown as QueryCreator<Database>;
  });
  const compiled = (query as unknown as Kysely<Database & { guard: object }>)
    .selectFrom('guard')
    .select(sql<number>`1 / count(*)`.as('matched'))
    .compile();
  if (keys && values && known === undefined && shapes.count < MAX_SHAPES) {
    const { parameters } = compiled;
    const same =
      parameters.length === values.length &&
      parameters.every((parameter, index) => parameter === values[index]);
    nodeOf(shapes.root, keys, true)!.sql = same ? compiled.sql : null;
    shapes.count += 1;
  }
  return { sql: compiled.sql, parameters: compiled.parameters };
}
