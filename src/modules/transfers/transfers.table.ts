import type { Environment } from '../../platform/environment.js';

/** A transfer's state (docs/partner-guide.md, "Sending money"). */
export const TRANSFER_STATUSES = ['pending', 'processing', 'successful', 'failed', 'reversed'] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

/** Out through the bank (NIP), or to another account of this institution (book: never leaves the ledger). */
export type TransferKind = 'interbank' | 'book';

/**
 * A transfer out of a virtual account. While `pending` or `processing` its amount and fee are held on
 * the account (`virtual_accounts.held_kobo`); `successful` books them as two debit entries, `failed`
 * releases them, `reversed` credits the amount back. `next_query_at` is when the worker next looks at
 * it (a pending one at once; a processing one to ask the bank its status); null when it waits for
 * nothing.
 */
export interface TransfersTable {
  id: string;
  partner_id: number;
  environment: Environment;
  account_id: string;
  source_account_number: string;
  source_account_name: string;
  /** The partner's own reference, unique per partner and environment. */
  reference: string;
  kind: TransferKind;
  status: TransferStatus;
  amount_kobo: number;
  fee_kobo: number;
  beneficiary_account_name: string;
  beneficiary_account_number: string;
  beneficiary_bank_code: string;
  beneficiary_bank_name: string;
  /** A book transfer's receiving account. */
  beneficiary_account_id: string | null;
  narration: string;
  name_enquiry_ref: string | null;
  /** The bank's own name-enquiry reference, sent back with the transfer. */
  bank_name_enquiry_ref: string | null;
  /** The NIBSS session id, once the bank gave one. */
  session_id: string | null;
  failure_reason: string | null;
  /** The bank's last NIP response code. */
  response_code: string | null;
  /** When the transfer was handed to the bank (`processing`): it is never handed again. */
  sent_at: number | null;
  next_query_at: number | null;
  /** Status queries made so far (the back-off's exponent). */
  query_attempts: number;
  created_at: number;
  updated_at: number;
}

/** Every state a transfer entered, with its time: the status history partners and operators see. */
export interface TransferStatusChangesTable {
  id: string;
  transfer_id: string;
  status: TransferStatus;
  reason: string | null;
  at: number;
}

/** A name enquiry's answer, reusable for 30 minutes by its ref (and per bank and account). */
export interface NameEnquiriesTable {
  ref: string;
  environment: Environment;
  bank_code: string;
  account_number: string;
  account_name: string;
  bank_ref: string | null;
  created_at: number;
}

export interface TransfersTables {
  transfers: TransfersTable;
  transfer_status_changes: TransferStatusChangesTable;
  name_enquiries: NameEnquiriesTable;
}
