import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { migrateToLatest } from '../../src/platform/db/migrator.js';
import { createTestDatabase, DIALECTS, type TestApp, type TestDatabase, useApp } from '../support/app.js';
import { customerBody } from '../support/factories.js';
import { assertLedgerBalanced, ledgerProblems } from '../support/ledger.js';
import { migrateTo, migrationBefore, migratorFor } from '../support/migrations.js';
import { newPartner, type PartnerAt } from '../support/partners.js';
import { accountUrl, CREATE_ACCOUNT, creditUrl, lifecycleUrl } from '../support/paths.js';
import { runScript } from '../support/server-process.js';

/*
 * The ledger's rules, on both databases: entries are never updated or deleted, each carries the
 * balance after it, the account's balance moves only with the entry that explains it, and
 * `npm run ledger:verify` proves Σ entries = balance (or names the accounts where it does not hold).
 */

async function openAccount(app: TestApp, token: string): Promise<{ id: string; account_number: string }> {
  const created = await app.api.post(CREATE_ACCOUNT, customerBody(), { token });
  assert.equal(created.status, 201, created.text);
  return created.body.data;
}

for (const dialect of DIALECTS) {
  describe(`the ledger [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);
    let app: TestApp;
    let handle: { db: TestApp['db'] };
    let database: TestDatabase;
    let partner: PartnerAt<'sandbox'>;
    before(async () => {
      app = suite.t;
      handle = suite.t;
      database = suite.t.database;
      partner = await newPartner(suite, 'sandbox');
    });

    it('refuses to update or delete an entry, in the database itself: a correction can only be a new entry', async () => {
      const account = await openAccount(app, partner.sandboxKey);
      const credit = await app.api.post(
        creditUrl(account.account_number),
        { amount: '10.00' },
        {
          token: partner.sandboxKey,
        },
      );
      assert.equal(credit.status, 201, credit.text);
      const id = credit.body.data.transaction.id as string;
      await assert.rejects(
        handle.db.updateTable('account_transactions').set({ amount_kobo: 1 }).where('id', '=', id).execute(),
        /never updated or deleted/,
      );
      await assert.rejects(
        handle.db.deleteFrom('account_transactions').where('id', '=', id).execute(),
        /never updated or deleted/,
      );
      const row = await handle.db
        .selectFrom('account_transactions')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.amount_kobo), 1000);
      assert.equal(Number(row.balance_after_kobo), 1000);
    });

    it('keeps Σ entries = balance and every running balance under 60 credits raced over three accounts with status changes', async () => {
      const accounts = await Promise.all([1, 2, 3].map(() => openAccount(app, partner.sandboxKey)));
      const amounts = ['0.01', '1.15', '99.99', '12.34', '0.29', '2.00'];
      const credits = Array.from({ length: 60 }, (_, index) =>
        app.api.post(
          creditUrl(accounts[index % 3]!.account_number),
          { amount: amounts[index % amounts.length] },
          { token: partner.sandboxKey },
        ),
      );
      // The third account is switched off and on while its credits land: each credit either lands
      // (before or after the change) or is refused, never half done.
      const third = accounts[2]!.account_number;
      const changes = [
        app.api.post(lifecycleUrl(third, 'deactivate'), { reason: 'Review' }, { token: partner.sandboxKey }),
        app.api.post(lifecycleUrl(third, 'reactivate'), {}, { token: partner.sandboxKey }),
      ];
      const answers = await Promise.all([...credits, ...changes]);
      for (const answer of answers.slice(0, 60)) {
        assert.ok([201, 409].includes(answer.status), answer.text);
        if (answer.status === 409) assert.equal(answer.body.error_code, 'ACCOUNT_INACTIVE');
      }
      const landed = answers.slice(0, 60).filter((answer) => answer.status === 201);
      assert.ok(landed.length >= 40, `${landed.length} credits landed`);
      await assertLedgerBalanced(handle.db);
      for (const account of accounts) {
        const read = await app.api.get(accountUrl(account.account_number), { token: partner.sandboxKey });
        const credited = landed
          .map((answer) => answer.body.data)
          .filter((data) => data.account.account_number === account.account_number)
          .reduce((sum, data) => sum + data.transaction.amount_kobo, 0);
        assert.equal(read.body.data.balance_kobo, credited, account.account_number);
        assert.equal(read.body.data.available_balance_kobo, credited);
      }
      const verified = await runScript(database, 'ledger-verify.ts');
      assert.equal(verified.code, 0, `${verified.stdout}\n${verified.stderr}`);
      assert.match(verified.stdout, /ledger verified/);
    });

    it('npm run ledger:verify exits 1 naming an account whose balance does not match its entries', async () => {
      const account = await openAccount(app, partner.sandboxKey);
      for (const amount of ['5.00', '7.50']) {
        const credit = await app.api.post(
          creditUrl(account.account_number),
          { amount },
          {
            token: partner.sandboxKey,
          },
        );
        assert.equal(credit.status, 201, credit.text);
      }
      await handle.db
        .updateTable('virtual_accounts')
        .set({ balance_kobo: 1 })
        .where('id', '=', account.id)
        .execute();
      try {
        assert.notDeepEqual(await ledgerProblems(handle.db), [], 'the oracle sees it too');
        const run = await runScript(database, 'ledger-verify.ts');
        assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
        assert.match(run.stdout, /ledger mismatch: 1 account/);
        assert.match(run.stdout, new RegExp(`${account.account_number} .*balance 1 kobo, entries 1250 kobo`));
      } finally {
        await handle.db
          .updateTable('virtual_accounts')
          .set({ balance_kobo: 1250 })
          .where('id', '=', account.id)
          .execute();
      }
      assert.equal((await runScript(database, 'ledger-verify.ts')).code, 0);
    });
  });

  describe(`the ledger migration [${dialect.name}]`, { skip: dialect.skip }, () => {
    it('gives existing credits their kind and running balance, and each account its balance', async () => {
      const database = await createTestDatabase(dialect.name);
      const handle = database.open();
      try {
        const migrator = migratorFor(handle.db, handle.schema);
        const before = await migrateTo(migrator, migrationBefore('2026-11-27-04-ledger'));
        assert.equal(before.error, undefined, String(before.error));
        // biome-ignore lint/suspicious/noExplicitAny: the schema as it was before the migration.
        const db = handle.db as any;
        const partner = await db
          .insertInto('partners')
          .values({
            email: 'old@example.com',
            business_name: 'Old Ltd',
            legal_business_name: 'Old Ltd',
            phone: '+2348031234567',
            password_hash: 'x',
            onboarding_status: 'in_progress',
            created_at: 1000,
            updated_at: 1000,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        const account = (id: string, number: string) => ({
          id,
          partner_id: partner.id,
          environment: 'sandbox',
          account_number: number,
          bank_code: '999999',
          bank_name: 'Bank',
          account_name: 'Old Ltd/A B',
          currency: 'NGN',
          status: 'active',
          first_name: 'A',
          last_name: 'B',
          customer_email: `${number}@example.com`,
          phone: '+2348031234567',
          created_at: 1000,
        });
        await db
          .insertInto('virtual_accounts')
          .values([account('a', '0000000001'), account('b', '0000000002'), account('c', '0000000003')])
          .execute();
        const credit = (id: string, accountId: string, kobo: number, at: number) => ({
          id,
          account_id: accountId,
          partner_id: partner.id,
          environment: 'sandbox',
          type: 'credit',
          amount_kobo: kobo,
          narration: null,
          reference: `SIM-${id}`,
          created_at: at,
        });
        // Inserted out of order: the running balance follows (created_at, id), not insertion.
        await db
          .insertInto('account_transactions')
          .values([
            credit('t3', 'a', 300, 3000),
            credit('t1', 'a', 100, 1000),
            credit('t2b', 'a', 25, 2000),
            credit('t2a', 'a', 200, 2000),
            credit('u1', 'b', 5, 1500),
          ])
          .execute();

        // The ledger's migrations first; later ones may follow.
        assert.deepEqual((await migrateToLatest(handle.db, handle.schema)).slice(0, 3), [
          '2026-11-27-04-ledger',
          '2026-11-27-05-money-in',
          '2026-11-28-01-transfers',
        ]);
        const entries = await handle.db
          .selectFrom('account_transactions')
          .select(['id', 'kind', 'balance_after_kobo'])
          .orderBy('id')
          .execute();
        assert.deepEqual(
          entries.map((row) => [row.id, row.kind, Number(row.balance_after_kobo)]),
          [
            ['t1', 'inbound_transfer', 100],
            ['t2a', 'inbound_transfer', 300],
            ['t2b', 'inbound_transfer', 325],
            ['t3', 'inbound_transfer', 625],
            ['u1', 'inbound_transfer', 5],
          ],
        );
        const balances = await handle.db
          .selectFrom('virtual_accounts')
          .select(['id', 'balance_kobo', 'last_entry_at'])
          .orderBy('id')
          .execute();
        // The money-in migration dates each account's latest entry on its row (null: none).
        assert.deepEqual(
          balances.map((row) => [
            row.id,
            Number(row.balance_kobo),
            row.last_entry_at === null ? null : Number(row.last_entry_at),
          ]),
          [
            ['a', 625, 3000],
            ['b', 5, 1500],
            ['c', 0, null],
          ],
        );
        await assertLedgerBalanced(handle.db);
      } finally {
        await handle.close();
        await database.drop();
      }
    });
  });
}
