import { type Kysely, PostgresAdapter, type RawBuilder, type SqlBool, sql } from 'kysely';

/** Whether `db` (or a transaction of it) speaks to PostgreSQL rather than SQLite. */
export const isPostgresDb = <T>(db: Kysely<T>): boolean =>
  db.getExecutor().adapter instanceof PostgresAdapter;

/** The largest of several values in a row: `greatest` on PostgreSQL, the scalar `max` on SQLite. */
export const greatestOf = <T>(db: Kysely<T>): 'greatest' | 'max' => (isPostgresDb(db) ? 'greatest' : 'max');

/** Above every character: a prefix's range ends at the prefix followed by it. */
const LAST_CODE_POINT = '\u{10FFFF}';

/**
 * `expression` starts with `prefix`, as a range an index on the expression serves on both dialects:
 * `expression >= prefix and expression < prefix || U+10FFFF`, compared as bytes (COLLATE "C" on
 * PostgreSQL, where the index must carry the same collation; SQLite's default BINARY collation), in
 * which UTF-8 sorts by code point. Unlike LIKE, nothing in the prefix is a wildcard.
 */
export function startsWith<T>(
  db: Kysely<T>,
  expression: RawBuilder<unknown>,
  prefix: string,
): RawBuilder<SqlBool> {
  const compared = isPostgresDb(db) ? sql`${expression} collate "C"` : expression;
  return sql<SqlBool>`(${compared} >= ${prefix} and ${compared} < ${prefix + LAST_CODE_POINT})`;
}

/** `expression` holds `text` anywhere (`strpos` / `instr`): no wildcards, for small tables only (no index). */
export function containsText<T>(
  db: Kysely<T>,
  expression: RawBuilder<unknown>,
  text: string,
): RawBuilder<SqlBool> {
  return isPostgresDb(db)
    ? sql<SqlBool>`strpos(${expression}, ${text}) > 0`
    : sql<SqlBool>`instr(${expression}, ${text}) > 0`;
}

/**
 * One of a few known values (an enum the request schema checked, or text of a shape the caller
 * checked) as a literal instead of a parameter, for a filter on a column of few distinct values. Every statement is named on PostgreSQL, which after
 * five runs may settle on a generic plan: it estimates `column = $1` at 1/n of the rows (n distinct
 * values), so for a rare value ("operator" among actor types, a failed delivery) it would walk the
 * list's order skipping rows instead of reading the filter's index. A literal keeps each value's plan
 * its own, at one statement text per value (docs/decisions.md, "Indexes at volume").
 */
export const knownValue = <V extends string>(value: V): RawBuilder<V> => sql.lit(value);

/**
 * A claim's sub-select: on PostgreSQL it locks the rows it picks and passes over those another
 * transaction holds (`FOR UPDATE SKIP LOCKED`), so instances claiming at once take different rows
 * instead of queueing on the same ones; SQLite runs one writer at a time and has no such clause.
 */
export function skippingLocked<Q extends { forUpdate(): Q; skipLocked(): Q }, T>(db: Kysely<T>, query: Q): Q {
  return isPostgresDb(db) ? query.forUpdate().skipLocked() : query;
}
