import type { Environment } from '../../platform/environment.js';
import type { AccountStatus, EntryKind, EntryType } from './virtual-accounts.schemas.js';

export interface VirtualAccountsTable {
  id: string;
  partner_id: number;
  environment: Environment;
  account_number: string;
  bank_code: string;
  bank_name: string;
  account_name: string;
  currency: 'NGN';
  status: AccountStatus;
  /** The reason given with the last deactivation or closure. */
  status_reason: string | null;
  status_changed_at: number | null;
  first_name: string;
  last_name: string;
  customer_email: string;
  phone: string;
  bvn_encrypted: string | null;
  bvn_hash: string | null;
  bvn_last4: string | null;
  /**
   * The ledger balance in kobo: the sum of the account's entries, credits less debits, moved only in
   * the transaction that writes the entry explaining it (ledger.repository.ts). Never negative.
   */
  balance_kobo: number;
  /**
   * The amount and fee of every transfer from the account still pending or processing, in kobo:
   * available = balance − held, never negative (a CHECK), moved under the row lock with the transfer.
   */
  held_kobo: number;
  /** When its latest entry is dated (null: none yet), moved with the balance (ledger.repository.ts). */
  last_entry_at: number | null;
  created_at: number;
}

/**
 * The ledger: one row per movement of money on an account, never updated or deleted (triggers
 * refuse both; a correction is a new entry). Its order is (created_at, id): entries of an account are
 * dated strictly increasing in commit order, under the account's row lock.
 */
export interface AccountTransactionsTable {
  id: string;
  account_id: string;
  partner_id: number;
  environment: Environment;
  /** The direction: a credit adds `amount_kobo` to the balance, a debit takes it away. */
  type: EntryType;
  /** Why the money moved. */
  kind: EntryKind;
  /** Integer kobo, always positive. */
  amount_kobo: number;
  /** The account's balance just after this entry, in kobo. */
  balance_after_kobo: number;
  narration: string | null;
  /** Unique: ours (`SIM-…`, a transfer's), never the partner's. */
  reference: string;
  /** The other bank account: the sender of money in, the beneficiary of money out. */
  counterparty_account_name: string | null;
  counterparty_account_number: string | null;
  counterparty_bank_code: string | null;
  counterparty_bank_name: string | null;
  /** The NIBSS session id of the interbank transfer, when there is one. */
  session_id: string | null;
  /** The transfer this entry books (money out, its fee, its reversal). */
  transfer_id: string | null;
  created_at: number;
}
