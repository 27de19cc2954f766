import { sql } from 'kysely';
import type { AnyDb } from './helpers.js';

/**
 * Money out. A transfer accepted from an account holds its amount and fee on the account's row
 * (`held_kobo`, moved under the row lock with the transfer's own row): the available balance,
 * balance − held, is never negative, which a CHECK keeps true whatever the code does. Each transfer
 * keeps its states with their times, and the worker finds the ones the bank still owes an answer
 * for by a partial index. Name enquiries are kept 30 minutes for reuse (by their ref, or per bank
 * and account).
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable('virtual_accounts')
    .addColumn('held_kobo', 'bigint', (c) =>
      c.notNull().defaultTo(0).check(sql`held_kobo >= 0 and held_kobo <= balance_kobo`),
    )
    .execute();

  await db.schema
    .createTable('transfers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('virtual_accounts.id').onDelete('cascade'))
    .addColumn('source_account_number', 'text', (c) => c.notNull())
    .addColumn('source_account_name', 'text', (c) => c.notNull())
    .addColumn('reference', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('amount_kobo', 'bigint', (c) => c.notNull().check(sql`amount_kobo > 0`))
    .addColumn('fee_kobo', 'bigint', (c) => c.notNull().check(sql`fee_kobo >= 0`))
    .addColumn('beneficiary_account_name', 'text', (c) => c.notNull())
    .addColumn('beneficiary_account_number', 'text', (c) => c.notNull())
    .addColumn('beneficiary_bank_code', 'text', (c) => c.notNull())
    .addColumn('beneficiary_bank_name', 'text', (c) => c.notNull())
    .addColumn('beneficiary_account_id', 'text')
    .addColumn('narration', 'text', (c) => c.notNull())
    .addColumn('name_enquiry_ref', 'text')
    .addColumn('bank_name_enquiry_ref', 'text')
    .addColumn('session_id', 'text')
    .addColumn('failure_reason', 'text')
    .addColumn('response_code', 'text')
    .addColumn('sent_at', 'bigint')
    .addColumn('next_query_at', 'bigint')
    .addColumn('query_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // The partner's reference is unique in its environment, decided by this index across instances.
  await db.schema
    .createIndex('transfers_reference_unique')
    .on('transfers')
    .columns(['partner_id', 'environment', 'reference'])
    .unique()
    .execute();
  // Lists: a partner's, newest first (ids are time-ordered), by status, by source account.
  await db.schema
    .createIndex('transfers_partner')
    .on('transfers')
    .columns(['partner_id', 'environment', 'id'])
    .execute();
  await db.schema
    .createIndex('transfers_partner_status')
    .on('transfers')
    .columns(['partner_id', 'environment', 'status', 'id'])
    .execute();
  await db.schema.createIndex('transfers_account').on('transfers').columns(['account_id', 'id']).execute();
  // The operator's lists and the daily report.
  await db.schema.createIndex('transfers_status').on('transfers').columns(['status', 'id']).execute();
  await db.schema
    .createIndex('transfers_environment_created')
    .on('transfers')
    .columns(['environment', 'created_at'])
    .execute();
  // The worker's queue: transfers the bank still owes an answer for (or that are not sent yet).
  await db.schema
    .createIndex('transfers_due')
    .on('transfers')
    .column('next_query_at')
    .where(sql.ref('next_query_at'), 'is not', null)
    .execute();

  await db.schema
    .createTable('transfer_status_changes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('transfer_id', 'text', (c) => c.notNull().references('transfers.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('transfer_status_changes_transfer')
    .on('transfer_status_changes')
    .columns(['transfer_id', 'at'])
    .execute();

  await db.schema
    .createTable('name_enquiries')
    .addColumn('ref', 'text', (c) => c.primaryKey())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('bank_code', 'text', (c) => c.notNull())
    .addColumn('account_number', 'text', (c) => c.notNull())
    .addColumn('account_name', 'text', (c) => c.notNull())
    .addColumn('bank_ref', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('name_enquiries_account')
    .on('name_enquiries')
    .columns(['environment', 'bank_code', 'account_number', 'created_at'])
    .execute();
  await db.schema.createIndex('name_enquiries_created').on('name_enquiries').column('created_at').execute();

  // The daily report: a day's entries of an environment.
  await db.schema
    .createIndex('account_transactions_environment_created')
    .on('account_transactions')
    .columns(['environment', 'created_at'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('account_transactions_environment_created').execute();
  await db.schema.dropTable('name_enquiries').execute();
  await db.schema.dropTable('transfer_status_changes').execute();
  await db.schema.dropTable('transfers').execute();
  await db.schema.alterTable('virtual_accounts').dropColumn('held_kobo').execute();
}
