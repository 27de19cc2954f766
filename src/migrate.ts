import { loadConfig, readDotEnv } from './config.js';
import { openDatabase } from './platform/db/database.js';
import { migrateToLatest } from './platform/db/migrator.js';

/** `npm run migrate`: applies pending migrations and exits non-zero if any fails. */
readDotEnv();
const config = loadConfig(process.env);
const database = openDatabase(config.DATABASE_URL);
try {
  const applied = await migrateToLatest(database.db, database.schema);
  process.stdout.write(applied.length > 0 ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await database.close();
}
