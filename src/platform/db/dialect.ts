import { type Kysely, PostgresAdapter } from 'kysely';
import type { Database } from './schema.js';

/** Whether `db` (or a transaction of it) speaks to PostgreSQL rather than SQLite. */
export const isPostgresDb = (db: Kysely<Database>): boolean =>
  db.getExecutor().adapter instanceof PostgresAdapter;

/** The largest of several values in a row: `greatest` on PostgreSQL, the scalar `max` on SQLite. */
export const greatestOf = (db: Kysely<Database>): 'greatest' | 'max' =>
  isPostgresDb(db) ? 'greatest' : 'max';
