import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { migrateToLatest } from '../../src/platform/db/migrator.js';
import { createTestApp, createTestDatabase, DIALECTS, startApp } from '../support/app.js';
import { migrateTo, migrationBefore, migratorFor } from '../support/migrations.js';

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
        const migrator = migratorFor(handle.db, handle.schema);
        const before = await migrateTo(migrator, migrationBefore('2026-11-27-03-first-submission'));
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

    it('writes every stored phone number it can read in E.164 and leaves the others as they were', async () => {
      const database = await createTestDatabase(dialect.name);
      const handle = database.open();
      try {
        const migrator = migratorFor(handle.db, handle.schema);
        const before = await migrateTo(migrator, migrationBefore('2026-11-28-04-phone-e164'));
        assert.equal(before.error, undefined, String(before.error));
        // biome-ignore lint/suspicious/noExplicitAny: the schema as it was before the migration.
        const db = handle.db as any;
        const phones: Array<[string, string]> = [
          ['0803 123 4567', '+2348031234567'],
          ['+234 (0)802-000-1111', '+2348020001111'],
          ['2349090000000', '+2349090000000'],
          ['+44 20 7946 0958', '+442079460958'],
          ['+2348031234567', '+2348031234567'],
          ['1234567', '1234567'],
          ['+234 800 000 0000', '+234 800 000 0000'],
          ['(((---)))', '(((---)))'],
        ];
        const partnerIds: number[] = [];
        for (const [index, [phone]] of phones.entries()) {
          const row = await db
            .insertInto('partners')
            .values({
              email: `p${index}@example.com`,
              business_name: 'Old Ltd',
              legal_business_name: 'Old Ltd',
              phone,
              password_hash: 'x',
              onboarding_status: 'in_progress',
              created_at: 1000,
              updated_at: 1000,
            })
            .returning('id')
            .executeTakeFirstOrThrow();
          partnerIds.push(row.id);
        }
        const person = (phone: string) => ({
          first_name: 'Ada',
          last_name: 'Obi',
          phone,
          dob: '1985-04-12',
          gender: 'female',
          designation: 'director',
          id_type: 'national_id',
          address: '12 Marina, Lagos',
          bvn_encrypted: 'x',
          bvn_hash: 'x',
          bvn_last4: '6789',
          created_at: 1000,
          updated_at: 1000,
        });
        await db
          .insertInto('representatives')
          .values(
            phones.map(([phone], index) => ({
              ...person(phone),
              partner_id: partnerIds[index],
              email: 'ada@acme.ng',
              kyc_status: 'passed',
              kyc_message: 'ok',
              kyc_provider: 'sandbox',
              kyc_checked_at: 1000,
            })),
          )
          .execute();
        await db
          .insertInto('team_members')
          .values(
            phones.map(([phone], index) => ({
              ...person(phone),
              id: `m${index}`,
              partner_id: partnerIds[0],
              email: `m${index}@acme.ng`,
              id_file_url: 'https://files.acme.ng/id.pdf',
            })),
          )
          .execute();
        // More accounts than the migration reads at once, so it goes through several pages.
        const accountCount = 1100;
        const accounts = Array.from({ length: accountCount }, (_, index) => ({
          id: `a${String(index).padStart(5, '0')}`,
          partner_id: partnerIds[0],
          environment: 'sandbox',
          account_number: String(index).padStart(10, '0'),
          bank_code: '999999',
          bank_name: 'Bank',
          account_name: 'Old Ltd/A B',
          currency: 'NGN',
          status: 'active',
          first_name: 'A',
          last_name: 'B',
          customer_email: `c${index}@example.com`,
          phone: phones[index % phones.length]![0],
          created_at: 1000,
        }));
        for (let start = 0; start < accountCount; start += 100) {
          await db
            .insertInto('virtual_accounts')
            .values(accounts.slice(start, start + 100))
            .execute();
        }

        const applied = await migrateToLatest(handle.db, handle.schema);
        assert.ok(applied.includes('2026-11-28-04-phone-e164'), String(applied));
        const stored = async (table: string, key: string) =>
          (await db.selectFrom(table).select('phone').orderBy(key).execute()).map(
            (row: { phone: string }) => row.phone,
          );
        const expected = phones.map(([, e164]) => e164);
        assert.deepEqual(await stored('partners', 'id'), expected);
        assert.deepEqual(await stored('representatives', 'partner_id'), expected);
        assert.deepEqual(await stored('team_members', 'id'), expected);
        const accountPhones = await db.selectFrom('virtual_accounts').select(['id', 'phone']).execute();
        assert.equal(accountPhones.length, accountCount);
        for (const row of accountPhones as Array<{ id: string; phone: string }>) {
          assert.equal(row.phone, expected[Number(row.id.slice(1)) % phones.length], row.id);
        }
      } finally {
        await handle.close();
        await database.drop();
      }
    });

    it('makes an owner user of every partner from its login, and gives its sessions to that owner', async () => {
      const database = await createTestDatabase(dialect.name);
      const handle = database.open();
      try {
        const migrator = migratorFor(handle.db, handle.schema);
        const before = await migrateTo(migrator, migrationBefore('2026-11-30-01-partner-users'));
        assert.equal(before.error, undefined, String(before.error));
        // biome-ignore lint/suspicious/noExplicitAny: the schema as it was before the migration.
        const db = handle.db as any;
        // More partners than the migration reads at once (500).
        const count = 520;
        const partners = Array.from({ length: count }, (_, index) => ({
          email: `owner${index}@example.com`,
          business_name: `Old ${index} Ltd`,
          legal_business_name: `Old ${index} Ltd`,
          phone: '+2348031234567',
          password_hash: `hash-${index}`,
          onboarding_status: 'in_progress',
          created_at: 1000 + index,
          updated_at: 1000 + index,
        }));
        for (let start = 0; start < count; start += 100) {
          await db
            .insertInto('partners')
            .values(partners.slice(start, start + 100))
            .execute();
        }
        const first = await db.selectFrom('partners').select('id').orderBy('id').executeTakeFirstOrThrow();
        await db
          .insertInto('sessions')
          .values({
            id: 's1',
            token_hash: 'h1',
            partner_id: first.id,
            environment: 'sandbox',
            created_at: 1,
            expires_at: 2,
          })
          .execute();

        const applied = await migrateToLatest(handle.db, handle.schema);
        assert.equal(applied[0], '2026-11-30-01-partner-users');
        const users = await db.selectFrom('partner_users').selectAll().orderBy('partner_id').execute();
        assert.equal(users.length, count);
        assert.equal(users[0].email, 'owner0@example.com');
        assert.equal(users[0].name, 'owner0');
        assert.equal(users[0].role, 'owner');
        assert.equal(users[0].password_hash, 'hash-0');
        assert.equal(users[0].removed_at, null);
        assert.equal(users[count - 1].password_hash, `hash-${count - 1}`);
        const session = await db.selectFrom('sessions').selectAll().executeTakeFirstOrThrow();
        assert.equal(session.user_id, users[0].id);
      } finally {
        await handle.close();
        await database.drop();
      }
    });
  });
}
