import type { Kysely } from 'kysely';
import * as postgres from 'kysely/helpers/postgres';
import * as sqlite from 'kysely/helpers/sqlite';
import { isPostgresDb } from './dialect.js';
import type { Database } from './schema.js';

/**
 * The dialect's builders for nesting rows as JSON inside one statement (a row's related rows in a
 * single round trip): json_agg / json_build_object on PostgreSQL, json_group_array / json_object on
 * SQLite.
 */
export function jsonHelpers(db: Kysely<Database>): Pick<typeof sqlite, 'jsonArrayFrom' | 'jsonObjectFrom'> {
  return isPostgresDb(db) ? postgres : sqlite;
}

/** A nested JSON value as read back: PostgreSQL's driver parses it, SQLite returns its text. */
export function fromJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}
