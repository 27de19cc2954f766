import assert from 'node:assert/strict';
import { type Kysely, type MigrationResultSet, Migrator } from 'kysely';
import { migrations } from '../../src/platform/db/migrations/index.js';
import { lostListingRace } from '../../src/platform/db/migrator.js';

/**
 * The migration that runs just before `name`: a test of a migration's backfill starts the schema
 * there, whatever migrations land after it.
 */
export function migrationBefore(name: string): string {
  const names = Object.keys(migrations).sort();
  const at = names.indexOf(name);
  assert.ok(at > 0, `${name} is a migration with one before it`);
  return names[at - 1]!;
}

/**
 * `migrator.migrateTo(target)`, looked at again (as migrateToLatest does) when Kysely's listing of
 * every schema's tables lost a race with another test file dropping its schema.
 */
export async function migrateTo(migrator: Migrator, target: string): Promise<MigrationResultSet> {
  let outcome = await migrator.migrateTo(target);
  for (let retry = 0; retry < 3 && lostListingRace(outcome); retry++)
    outcome = await migrator.migrateTo(target);
  return outcome;
}

/** The app's migrations on `db`, their bookkeeping in `schema` on PostgreSQL (as migrateToLatest does). */
export function migratorFor<T>(db: Kysely<T>, schema: string | undefined): Migrator {
  return new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
}
