import { sql } from 'kysely';
import { type AnyDb, isPostgres } from './helpers.js';

/**
 * Virtual-account lifecycle: a status reason and time, and the one-account-per-e-mail rule counting
 * only accounts that are not closed (a partial unique index instead of the table constraint). On
 * SQLite a table constraint cannot be dropped, so the table is rebuilt (SQLite's documented
 * procedure: foreign keys off, copy, swap, check). Statements read the ledger by time.
 */
export async function up(db: AnyDb): Promise<void> {
  if (isPostgres(db)) {
    await sql`alter table virtual_accounts drop constraint virtual_accounts_customer_unique`.execute(db);
    await db.schema.alterTable('virtual_accounts').addColumn('status_reason', 'text').execute();
    await db.schema.alterTable('virtual_accounts').addColumn('status_changed_at', 'bigint').execute();
  } else {
    await rebuildSqliteAccounts(db);
  }
  await db.schema
    .createIndex('virtual_accounts_open_customer_unique')
    .on('virtual_accounts')
    .columns(['partner_id', 'environment', 'customer_email'])
    .unique()
    .where(sql.ref('status'), '<>', 'closed')
    .execute();
  await db.schema
    .createIndex('account_transactions_account_time_idx')
    .on('account_transactions')
    .columns(['account_id', 'created_at', 'id'])
    .execute();
}

async function rebuildSqliteAccounts(db: AnyDb): Promise<void> {
  // Outside any transaction (Kysely runs SQLite migrations without one), as the pragma requires.
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(async (trx) => {
      await trx.schema
        .createTable('virtual_accounts_new')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id').onDelete('cascade'))
        .addColumn('environment', 'text', (c) => c.notNull())
        .addColumn('account_number', 'text', (c) => c.notNull())
        .addColumn('bank_code', 'text', (c) => c.notNull())
        .addColumn('bank_name', 'text', (c) => c.notNull())
        .addColumn('account_name', 'text', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('first_name', 'text', (c) => c.notNull())
        .addColumn('last_name', 'text', (c) => c.notNull())
        .addColumn('customer_email', 'text', (c) => c.notNull())
        .addColumn('phone', 'text', (c) => c.notNull())
        .addColumn('bvn_encrypted', 'text')
        .addColumn('bvn_hash', 'text')
        .addColumn('bvn_last4', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('status_reason', 'text')
        .addColumn('status_changed_at', 'bigint')
        .addUniqueConstraint('virtual_accounts_number_unique', ['bank_code', 'account_number'])
        .execute();
      await sql`insert into virtual_accounts_new (id, partner_id, environment, account_number, bank_code,
          bank_name, account_name, currency, status, first_name, last_name, customer_email, phone,
          bvn_encrypted, bvn_hash, bvn_last4, created_at)
        select id, partner_id, environment, account_number, bank_code, bank_name, account_name, currency,
          status, first_name, last_name, customer_email, phone, bvn_encrypted, bvn_hash, bvn_last4, created_at
        from virtual_accounts`.execute(trx);
      await trx.schema.dropTable('virtual_accounts').execute();
      await trx.schema.alterTable('virtual_accounts_new').renameTo('virtual_accounts').execute();
      await trx.schema
        .createIndex('virtual_accounts_partner_idx')
        .on('virtual_accounts')
        .columns(['partner_id', 'environment', 'id'])
        .execute();
      const { rows } = await sql<{ table: string }>`pragma foreign_key_check`.execute(trx);
      if (rows.length > 0)
        throw new Error(`foreign key check failed after the rebuild: ${JSON.stringify(rows)}`);
    });
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('account_transactions_account_time_idx').execute();
  await db.schema.dropIndex('virtual_accounts_open_customer_unique').execute();
  if (isPostgres(db)) {
    await db.schema.alterTable('virtual_accounts').dropColumn('status_changed_at').execute();
    await db.schema.alterTable('virtual_accounts').dropColumn('status_reason').execute();
    await sql`alter table virtual_accounts add constraint virtual_accounts_customer_unique
      unique (partner_id, environment, customer_email)`.execute(db);
  }
}
