import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { type Kysely, PostgresAdapter } from 'kysely';
import type { Database } from '../../src/platform/db/schema.js';
import { uniqueSuffix } from './factories.js';

/*
 * The ledger as the tests see it: entries seeded where no API writes them (a bank credit with a
 * narration the API would refuse, thousands of rows at chosen instants), kept to the ledger's rules,
 * and an oracle of the ledger's invariant written independently of src/.
 */

export interface SeededEntry {
  /** Positive kobo. */
  kobo: number;
  /** Epoch milliseconds: after every entry the account already has. */
  at: number;
  narration?: string | null;
  type?: 'credit' | 'debit';
  id?: string;
}

/**
 * Appends entries to an account as the ledger itself would: in (created_at, id) order after its
 * latest entry, each with the balance after it, and the account's balance moved with them, in one
 * transaction. Answers the rows written.
 */
export async function seedEntries(
  db: Kysely<Database>,
  accountNumber: string,
  entries: readonly SeededEntry[],
) {
  return db.transaction().execute(async (trx) => {
    const account = await trx
      .selectFrom('virtual_accounts')
      .select(['id', 'partner_id', 'environment', 'balance_kobo'])
      .where('account_number', '=', accountNumber)
      .executeTakeFirstOrThrow();
    const latest = await trx
      .selectFrom('account_transactions')
      .select((eb) => eb.fn.max('created_at').as('at'))
      .where('account_id', '=', account.id)
      .executeTakeFirst();
    const ordered = entries
      .map((entry) => ({ ...entry, id: entry.id ?? randomUUID() }))
      .sort((x, y) => x.at - y.at || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    if (latest?.at !== null && latest?.at !== undefined && ordered.length > 0) {
      assert.ok(ordered[0]!.at > Number(latest.at), 'seeded entries come after the ones the account has');
    }
    let balance = Number(account.balance_kobo);
    const rows = ordered.map((entry) => {
      balance += entry.type === 'debit' ? -entry.kobo : entry.kobo;
      assert.ok(balance >= 0, 'a seeded debit may not take the balance below zero');
      return {
        id: entry.id,
        account_id: account.id,
        partner_id: account.partner_id,
        environment: account.environment,
        type: entry.type ?? ('credit' as const),
        kind: 'inbound_transfer' as const,
        amount_kobo: entry.kobo,
        balance_after_kobo: balance,
        narration: entry.narration ?? null,
        reference: `BANK-${uniqueSuffix()}`,
        counterparty_account_name: null,
        counterparty_account_number: null,
        counterparty_bank_code: null,
        counterparty_bank_name: null,
        session_id: null,
        transfer_id: null,
        created_at: entry.at,
      };
    });
    for (let start = 0; start < rows.length; start += 500) {
      await trx
        .insertInto('account_transactions')
        .values(rows.slice(start, start + 500))
        .execute();
    }
    const last = rows.at(-1);
    await trx
      .updateTable('virtual_accounts')
      .set(last ? { balance_kobo: balance, last_entry_at: last.created_at } : { balance_kobo: balance })
      .where('id', '=', account.id)
      .execute();
    return rows;
  });
}

/**
 * The ledger's invariant, checked here without src/: for every account, the sum of its entries
 * (credits less debits) is its balance, each entry's balance_after is the one before it plus or
 * minus its amount, from zero, and what it holds is the amount and fee of its transfers still pending
 * or processing, never more than its balance. Answers what is wrong, one line an account ([] when all is well).
 */
export async function ledgerProblems(db: Kysely<Database>): Promise<string[]> {
  // One snapshot for every read, so a settlement committing meanwhile cannot split the picture.
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const snapshot = postgres ? db.transaction().setIsolationLevel('repeatable read') : db.transaction();
  return snapshot.execute((trx) => problemsIn(trx));
}

async function problemsIn(db: Kysely<Database>): Promise<string[]> {
  const accounts = await db
    .selectFrom('virtual_accounts')
    .select(['id', 'balance_kobo', 'held_kobo'])
    .execute();
  const open = await db
    .selectFrom('transfers')
    .select(['account_id', 'amount_kobo', 'fee_kobo'])
    .where('status', 'in', ['pending', 'processing'])
    .execute();
  const openByAccount = new Map<string, number>();
  for (const transfer of open) {
    openByAccount.set(
      transfer.account_id,
      (openByAccount.get(transfer.account_id) ?? 0) +
        Number(transfer.amount_kobo) +
        Number(transfer.fee_kobo),
    );
  }
  const entries = await db
    .selectFrom('account_transactions')
    .select(['account_id', 'id', 'type', 'amount_kobo', 'balance_after_kobo', 'created_at'])
    .orderBy('account_id')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const byAccount = new Map<string, typeof entries>();
  for (const entry of entries) {
    const list = byAccount.get(entry.account_id) ?? [];
    list.push(entry);
    byAccount.set(entry.account_id, list);
  }
  const problems: string[] = [];
  for (const account of accounts) {
    let running = 0;
    for (const entry of byAccount.get(account.id) ?? []) {
      assert.ok(Number(entry.amount_kobo) > 0, `entry ${entry.id}: a positive amount`);
      running += entry.type === 'credit' ? Number(entry.amount_kobo) : -Number(entry.amount_kobo);
      if (Number(entry.balance_after_kobo) !== running) {
        problems.push(
          `${account.id}: entry ${entry.id} says ${entry.balance_after_kobo}, the sum is ${running}`,
        );
      }
    }
    if (running !== Number(account.balance_kobo)) {
      problems.push(`${account.id}: balance ${account.balance_kobo}, entries sum to ${running}`);
    }
    const held = openByAccount.get(account.id) ?? 0;
    if (held !== Number(account.held_kobo)) {
      problems.push(`${account.id}: holds ${account.held_kobo}, its open transfers ${held}`);
    }
    if (Number(account.balance_kobo) - Number(account.held_kobo) < 0) {
      problems.push(`${account.id}: available balance below zero`);
    }
  }
  return problems;
}

/** Σ entries = balance for every account, and every running balance chains. */
export async function assertLedgerBalanced(db: Kysely<Database>): Promise<void> {
  assert.deepEqual(await ledgerProblems(db), [], 'the ledger adds up');
}
