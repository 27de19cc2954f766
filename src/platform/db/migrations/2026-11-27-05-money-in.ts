import { sql } from 'kysely';
import type { AnyDb } from './helpers.js';

/**
 * Money in. Each inbound transfer credits an account once per NIBSS session id: live session ids are
 * unique across the institution, sandbox ones (which partners may choose) per partner; a unique index
 * decides, across instances, so no read-then-write can let a duplicate through. Every credit
 * notification of the sponsor bank's connector is kept with its outcome for the operator.
 */
export async function up(db: AnyDb): Promise<void> {
  // When the account's latest entry is dated, kept on its row and moved with its balance in the
  // one UPDATE that posts an entry: the next entry is dated after it without reading the ledger.
  await db.schema.alterTable('virtual_accounts').addColumn('last_entry_at', 'bigint').execute();
  await sql`update virtual_accounts set last_entry_at = (
      select max(created_at) from account_transactions where account_transactions.account_id = virtual_accounts.id)`.execute(
    db,
  );
  await db.schema
    .createIndex('account_transactions_live_session_unique')
    .on('account_transactions')
    .column('session_id')
    .unique()
    .where(sql.ref('environment'), '=', 'live')
    .where(sql.ref('session_id'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('account_transactions_sandbox_session_unique')
    .on('account_transactions')
    .columns(['partner_id', 'session_id'])
    .unique()
    .where(sql.ref('environment'), '=', 'sandbox')
    .where(sql.ref('session_id'), 'is not', null)
    .execute();

  await db.schema
    .createTable('bank_credit_notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('account_number', 'text', (c) => c.notNull())
    .addColumn('amount_kobo', 'bigint', (c) => c.notNull())
    .addColumn('narration', 'text')
    .addColumn('originator_account_name', 'text', (c) => c.notNull())
    .addColumn('originator_account_number', 'text', (c) => c.notNull())
    .addColumn('originator_bank_code', 'text', (c) => c.notNull())
    .addColumn('originator_bank_name', 'text')
    .addColumn('transaction_at', 'bigint', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    // No foreign keys: a notification is the bank's record and outlives what it names.
    .addColumn('partner_id', 'integer')
    .addColumn('account_id', 'text')
    .addColumn('transaction_id', 'text')
    .addColumn('request_id', 'text')
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .execute();
  // The operator's list: newest first, by day, optionally by outcome.
  await db.schema
    .createIndex('bank_credit_notifications_received')
    .on('bank_credit_notifications')
    .columns(['received_at', 'id'])
    .execute();
  await db.schema
    .createIndex('bank_credit_notifications_outcome_received')
    .on('bank_credit_notifications')
    .columns(['outcome', 'received_at', 'id'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('bank_credit_notifications').execute();
  await db.schema.dropIndex('account_transactions_sandbox_session_unique').execute();
  await db.schema.dropIndex('account_transactions_live_session_unique').execute();
  await db.schema.alterTable('virtual_accounts').dropColumn('last_entry_at').execute();
}
