import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTestApp, createTestDatabase, DIALECTS, startApp } from '../support/app.js';

for (const dialect of DIALECTS) {
  describe(`migrations on a shared database server [${dialect.name}]`, { skip: dialect.skip }, () => {
    // Regression: Kysely's Migrator, not told the schema, found another schema's kysely_migration*
    // tables, skipped creating its own and failed ("relation kysely_migration_lock does not exist").
    it('migrates a fresh database (schema) while another app is running on its own', async () => {
      const running = await createTestApp(dialect.name);
      const database = await createTestDatabase(dialect.name);
      try {
        const second = await startApp(database);
        try {
          const response = await second.api.get('/readyz');
          assert.equal(response.status, 200, response.text);
        } finally {
          await second.stop();
        }
        const handle = database.open();
        try {
          assert.deepEqual(await handle.db.selectFrom('partners').select('id').execute(), []);
        } finally {
          await handle.close();
        }
      } finally {
        await database.drop();
        await running.close();
      }
    });
  });
}
