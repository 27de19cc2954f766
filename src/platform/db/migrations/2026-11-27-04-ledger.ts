import { sql } from 'kysely';
import { type AnyDb, isPostgres } from './helpers.js';

/**
 * A ledger ready for debits. Each entry gets its kind (why the money moved), the balance after it,
 * its counterparty (the other bank account), the NIBSS session id and the transfer it belongs to;
 * `type` gives the direction and `amount_kobo` stays positive. The account's balance is kept on its
 * row, moved only in the transaction that writes the entry explaining it, so a credit costs the same
 * on an account of 200,000 entries as on a new one. Existing entries (all credits) are inbound
 * transfers; their running balances and the accounts' balances are computed once here. Entries are
 * never updated or deleted: triggers refuse it, so a correction can only be a new entry.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable('virtual_accounts')
    .addColumn('balance_kobo', 'bigint', (c) => c.notNull().defaultTo(0).check(sql`balance_kobo >= 0`))
    .execute();
  const columns: Array<[string, 'text' | 'bigint', boolean]> = [
    ['kind', 'text', true],
    ['balance_after_kobo', 'bigint', true],
    ['counterparty_account_name', 'text', false],
    ['counterparty_account_number', 'text', false],
    ['counterparty_bank_code', 'text', false],
    ['counterparty_bank_name', 'text', false],
    ['session_id', 'text', false],
    ['transfer_id', 'text', false],
  ];
  for (const [name, type, required] of columns) {
    await db.schema
      .alterTable('account_transactions')
      .addColumn(name, type, (c) =>
        required ? c.notNull().defaultTo(name === 'kind' ? 'inbound_transfer' : 0) : c,
      )
      .execute();
  }

  // Running balances in ledger order (created_at, then id), then each account's balance.
  await sql`
    update account_transactions
    set balance_after_kobo = running.balance
    from (
      select id, sum(case when type = 'credit' then amount_kobo else -amount_kobo end)
        over (partition by account_id order by created_at, id) as balance
      from account_transactions
    ) as running
    where account_transactions.id = running.id
  `.execute(db);
  await sql`
    update virtual_accounts
    set balance_kobo = coalesce((
      select sum(case when type = 'credit' then amount_kobo else -amount_kobo end)
      from account_transactions
      where account_transactions.account_id = virtual_accounts.id
    ), 0)
  `.execute(db);

  if (isPostgres(db)) {
    await sql`
      create function account_transactions_immutable() returns trigger language plpgsql as $$
      begin
        raise exception 'ledger entries are never updated or deleted: post a new entry instead';
      end
      $$
    `.execute(db);
    await sql`
      create trigger account_transactions_immutable
      before update or delete on account_transactions
      for each row execute function account_transactions_immutable()
    `.execute(db);
  } else {
    for (const operation of ['update', 'delete']) {
      await sql
        .raw(
          `create trigger account_transactions_no_${operation} before ${operation} on account_transactions
           begin select raise(abort, 'ledger entries are never updated or deleted: post a new entry instead'); end`,
        )
        .execute(db);
    }
  }
}

export async function down(db: AnyDb): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop trigger account_transactions_immutable on account_transactions`.execute(db);
    await sql`drop function account_transactions_immutable()`.execute(db);
  } else {
    await sql`drop trigger account_transactions_no_update`.execute(db);
    await sql`drop trigger account_transactions_no_delete`.execute(db);
  }
  for (const column of [
    'transfer_id',
    'session_id',
    'counterparty_bank_name',
    'counterparty_bank_code',
    'counterparty_account_number',
    'counterparty_account_name',
    'balance_after_kobo',
    'kind',
  ]) {
    await db.schema.alterTable('account_transactions').dropColumn(column).execute();
  }
  await db.schema.alterTable('virtual_accounts').dropColumn('balance_kobo').execute();
}
