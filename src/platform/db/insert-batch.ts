import { type Insertable, type Kysely, PostgresAdapter, type QueryCreator } from 'kysely';
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

/**
 * Inserts every row of the batch. PostgreSQL gets one statement (data-modifying CTEs: atomic on its
 * own, one round trip whatever the number of tables); SQLite, in-process, gets one statement per
 * table. Call inside the transaction of the change, or alone when the batch is the whole change.
 */
export async function insertBatch(db: Kysely<Database>, batch: readonly BatchInsert[]): Promise<void> {
  const inserts = batch.filter((entry) => entry.rows.length > 0);
  if (inserts.length === 0) return;
  // The rows of each entry were checked against its table by rowsOf; `never` carries them past the
  // builder's per-table typing, which a table name chosen at run time cannot satisfy.
  if (inserts.length === 1 || !(db.getExecutor().adapter instanceof PostgresAdapter)) {
    for (const { table, rows } of inserts)
      await db
        .insertInto(table)
        .values(rows as never)
        .execute();
    return;
  }
  const last = inserts.at(-1)!;
  let query: QueryCreator<Database> = db;
  inserts.slice(0, -1).forEach(({ table, rows }, index) => {
    // The CTEs are only written to, never read: the builder's added table types are not needed.
    query = query.with(`batch_${index}`, (qb) =>
      qb.insertInto(table).values(rows as never),
    ) as unknown as QueryCreator<Database>;
  });
  await query
    .insertInto(last.table)
    .values(last.rows as never)
    .execute();
}
