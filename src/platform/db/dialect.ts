import { type Kysely, PostgresAdapter } from 'kysely';

/** Whether `db` (or a transaction of it) speaks to PostgreSQL rather than SQLite. */
export const isPostgresDb = <T>(db: Kysely<T>): boolean =>
  db.getExecutor().adapter instanceof PostgresAdapter;

/** The largest of several values in a row: `greatest` on PostgreSQL, the scalar `max` on SQLite. */
export const greatestOf = <T>(db: Kysely<T>): 'greatest' | 'max' => (isPostgresDb(db) ? 'greatest' : 'max');
