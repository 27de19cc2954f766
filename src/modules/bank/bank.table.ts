/** A notification's outcome: credited the account, repeated an earlier one, or refused. */
export type NotificationOutcome = 'credited' | 'duplicate' | 'refused';

/**
 * Every credit notification of the sponsor bank's connector with a well-formed body, as received and
 * with its outcome: the operator's record to reconcile against the bank's own.
 */
export interface BankCreditNotificationsTable {
  id: string;
  /** The NIBSS session id (30 digits). */
  session_id: string;
  account_number: string;
  amount_kobo: number;
  narration: string | null;
  originator_account_name: string;
  originator_account_number: string;
  originator_bank_code: string;
  originator_bank_name: string | null;
  /** When the bank says the transfer happened (epoch ms). */
  transaction_at: number;
  outcome: NotificationOutcome;
  /** Why a refused one was refused: NOT_FOUND, ACCOUNT_INACTIVE or ACCOUNT_CLOSED. */
  error_code: string | null;
  /** The account's partner and the account, when the number is one of ours. */
  partner_id: number | null;
  account_id: string | null;
  /** The ledger entry it credited, or the earlier one a duplicate repeats. */
  transaction_id: string | null;
  request_id: string | null;
  received_at: number;
}
