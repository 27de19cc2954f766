import { DEFAULT_MIGRATION_LOCK_TABLE, DEFAULT_MIGRATION_TABLE, MIGRATION_LOCK_ID } from 'kysely';
import {
  createTestDatabase,
  type DialectName,
  startApp,
  type TestApp,
  type TestAppOptions,
  type TestDatabase,
} from './app.js';

/**
 * Guards against a bug that src/platform/db/migrator.ts had: without `migrationTableSchema`, Kysely's
 * Migrator looks for its bookkeeping tables in every PostgreSQL schema; while another test app's
 * schema holds them, a fresh schema's migration skips creating its own and then fails with
 * `relation "kysely_migration_lock" does not exist`. Creating them in the fresh schema first is
 * what the Migrator itself would do, so this is harmless now that migrator.ts passes the schema;
 * test/platform/migrations.test.ts checks the fix on plain createTestDatabase.
 */
async function prepareMigrationTables(database: TestDatabase): Promise<void> {
  if (!database.pgSchema) return;
  const handle = database.open();
  try {
    await handle.db.schema
      .createTable(DEFAULT_MIGRATION_TABLE)
      .ifNotExists()
      .addColumn('name', 'varchar(255)', (col) => col.notNull().primaryKey())
      .addColumn('timestamp', 'varchar(255)', (col) => col.notNull())
      .execute();
    await handle.db.schema
      .createTable(DEFAULT_MIGRATION_LOCK_TABLE)
      .ifNotExists()
      .addColumn('id', 'varchar(255)', (col) => col.notNull().primaryKey())
      .addColumn('is_locked', 'integer', (col) => col.notNull().defaultTo(0))
      .execute();
    // biome-ignore lint/suspicious/noExplicitAny: Kysely's own table is not in the app's schema type.
    await (handle.db as any)
      .insertInto(DEFAULT_MIGRATION_LOCK_TABLE)
      .values({ id: MIGRATION_LOCK_ID, is_locked: 0 })
      .execute();
  } finally {
    await handle.close();
  }
}

/** createTestDatabase, ready for an app to migrate even while other test apps run. */
export async function createIsolatedTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  const database = await createTestDatabase(dialect);
  try {
    await prepareMigrationTables(database);
  } catch (error) {
    await database.drop();
    throw error;
  }
  return database;
}

/** createTestApp, on a database prepared by createIsolatedTestDatabase; drops it if the app fails to start. */
export async function createIsolatedTestApp(
  dialect: DialectName,
  options: TestAppOptions = {},
): Promise<TestApp> {
  const database = await createIsolatedTestDatabase(dialect);
  let started: Awaited<ReturnType<typeof startApp>>;
  try {
    started = await startApp(database, options);
  } catch (error) {
    await database.drop();
    throw error;
  }
  const handle = database.open();
  return {
    ...started,
    db: handle.db,
    close: async () => {
      await started.stop();
      await handle.close();
      await database.drop();
    },
  };
}
