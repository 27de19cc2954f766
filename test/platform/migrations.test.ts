import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Migrator } from 'kysely';
import { migrations } from '../../src/platform/db/migrations/index.js';
import { migrateToLatest } from '../../src/platform/db/migrator.js';
import { createTestApp, createTestDatabase, DIALECTS, startApp } from '../support/app.js';
import { migrationBefore } from '../support/migrations.js';

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

    it('dates the first submission of partners that existed before first_submitted_at from the audit trail', async () => {
      const database = await createTestDatabase(dialect.name);
      const handle = database.open();
      try {
        const migrator = new Migrator({
          db: handle.db,
          provider: { getMigrations: async () => migrations },
          ...(handle.schema ? { migrationTableSchema: handle.schema } : {}),
        });
        const before = await migrator.migrateTo(migrationBefore('2026-11-27-03-first-submission'));
        assert.equal(before.error, undefined, String(before.error));
        // biome-ignore lint/suspicious/noExplicitAny: the schema as it was before the migration.
        const db = handle.db as any;
        const partner = (email: string, status: string, updatedAt: number) => ({
          email,
          business_name: 'Old Ltd',
          legal_business_name: 'Old Ltd',
          phone: '+2348031234567',
          password_hash: 'x',
          onboarding_status: status,
          created_at: 1000,
          updated_at: updatedAt,
        });
        const ids: number[] = [];
        for (const [email, status, updatedAt] of [
          ['never@example.com', 'in_progress', 2000],
          ['sent-back@example.com', 'in_progress', 5000],
          ['active@example.com', 'active', 6000],
          ['unaudited@example.com', 'under_review', 7000],
        ] as const) {
          const row = await db
            .insertInto('partners')
            .values(partner(email, status, updatedAt))
            .returning('id')
            .executeTakeFirstOrThrow();
          ids.push(row.id);
        }
        const [never, sentBack, active] = ids as [number, number, number, number];
        const event = (id: string, partnerId: number, action: string, at: number) => ({
          id,
          partner_id: partnerId,
          actor_type: 'partner',
          action,
          created_at: at,
        });
        await db
          .insertInto('audit_events')
          .values([
            event('e1', never, 'onboarding.profile_updated', 1500),
            event('e2', sentBack, 'onboarding.status_changed', 3000),
            event('e3', sentBack, 'onboarding.status_changed', 4000),
            event('e4', active, 'onboarding.status_changed', 5500),
            event('e5', active, 'onboarding.status_changed', 5800),
          ])
          .execute();

        const applied = await migrateToLatest(handle.db, handle.schema);
        assert.equal(applied[0], '2026-11-27-03-first-submission', String(applied));
        const rows = await handle.db
          .selectFrom('partners')
          .select(['id', 'first_submitted_at'])
          .orderBy('id')
          .execute();
        assert.deepEqual(
          rows.map((row) => row.first_submitted_at),
          [null, 3000, 5500, 7000],
          'never submitted; the first of two submissions; submitted then approved; past in_progress unaudited',
        );
      } finally {
        await handle.close();
        await database.drop();
      }
    });
  });
}
