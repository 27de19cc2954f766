import { DEFAULT_MIGRATION_TABLE, type Kysely, type MigrationResultSet, Migrator, sql } from 'kysely';
import { isPostgresDb } from './dialect.js';
import { migrations } from './migrations/index.js';

/**
 * Applies pending migrations; throws (with the failing migration's name) if any fails. On
 * PostgreSQL with a non-default schema, Kysely must be told the schema, or it finds its
 * bookkeeping tables in another schema and never creates its own.
 */
export async function migrateToLatest<T>(db: Kysely<T>, schema?: string): Promise<string[]> {
  const tableSchema = schema ?? (await currentPostgresSchema(db));
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(tableSchema ? { migrationTableSchema: tableSchema } : {}),
  });
  let outcome = await migrator.migrateToLatest();
  // Before it migrates, Kysely looks for its tables by listing the tables of every schema, even
  // with migrationTableSchema set. Another app sharing the database (parallel test runs) that drops
  // its schema meanwhile fails that listing with `schema "…"` or `relation "…" does not exist`.
  // No migration has run then (no results), so looking again is safe.
  for (let retry = 0; retry < 3 && lostListingRace(outcome); retry++) {
    outcome = await migrator.migrateToLatest();
  }
  const { error, results = [] } = outcome;
  const failed = results.find((result) => result.status === 'Error');
  if (error || failed) {
    const cause = error instanceof Error ? error.message : String(error ?? 'unknown error');
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${cause}`, { cause: error });
  }
  return results.filter((result) => result.status === 'Success').map((result) => result.migrationName);
}

/** Kysely's listing lost a race with another schema's drop, before any migration ran: try again. */
export function lostListingRace(outcome: MigrationResultSet): boolean {
  return (
    outcome.results === undefined && /(schema|relation) "[^"]+" does not exist/.test(String(outcome.error))
  );
}

async function currentPostgresSchema<T>(db: Kysely<T>): Promise<string | undefined> {
  if (!isPostgresDb(db)) return undefined;
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema;
}

/**
 * The migrations this code knows that the database has not applied (readiness): one read of
 * Kysely's bookkeeping table, a row a migration.
 */
export async function pendingMigrations<T>(db: Kysely<T>, schema?: string): Promise<string[]> {
  const source = (schema ? db.withSchema(schema) : db) as unknown as Kysely<
    Record<typeof DEFAULT_MIGRATION_TABLE, { name: string }>
  >;
  const applied = await source.selectFrom(DEFAULT_MIGRATION_TABLE).select('name').execute();
  const names = new Set(applied.map((row) => row.name));
  return Object.keys(migrations).filter((name) => !names.has(name));
}
