import type { AnyDb } from './helpers.js';

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('lookup_prefix', 'text', (c) => c.notNull().unique())
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_partner_idx').on('api_keys').columns(['partner_id', 'id']).execute();

  await db.schema
    .createTable('team_members')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('dob', 'text', (c) => c.notNull())
    .addColumn('gender', 'text', (c) => c.notNull())
    .addColumn('designation', 'text', (c) => c.notNull())
    .addColumn('bvn_encrypted', 'text', (c) => c.notNull())
    .addColumn('bvn_hash', 'text', (c) => c.notNull())
    .addColumn('bvn_last4', 'text', (c) => c.notNull())
    .addColumn('id_type', 'text', (c) => c.notNull())
    .addColumn('id_file_url', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('team_members_email_unique', ['partner_id', 'email'])
    .execute();

  await db.schema
    .createTable('virtual_accounts')
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
    // Every number is unique at its institution: allocation retries on this constraint.
    .addUniqueConstraint('virtual_accounts_number_unique', ['bank_code', 'account_number'])
    .addUniqueConstraint('virtual_accounts_customer_unique', ['partner_id', 'environment', 'customer_email'])
    .execute();
  await db.schema
    .createIndex('virtual_accounts_partner_idx')
    .on('virtual_accounts')
    .columns(['partner_id', 'environment', 'id'])
    .execute();

  await db.schema
    .createTable('account_transactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('virtual_accounts.id').onDelete('cascade'))
    .addColumn('partner_id', 'integer', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('amount_kobo', 'bigint', (c) => c.notNull())
    .addColumn('narration', 'text')
    .addColumn('reference', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('account_transactions_account_idx')
    .on('account_transactions')
    .columns(['account_id', 'id'])
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('partner_id', 'integer', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['partner_id', 'environment', 'key'])
    .execute();
  await db.schema
    .createIndex('idempotency_keys_expires_idx')
    .on('idempotency_keys')
    .column('expires_at')
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const table of [
    'idempotency_keys',
    'account_transactions',
    'virtual_accounts',
    'team_members',
    'api_keys',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
