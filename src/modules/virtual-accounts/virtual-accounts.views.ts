import { toIso } from '../../platform/clock.js';
import type { EntryRow } from './ledger.repository.js';
import { koboToNaira } from './money.js';
import type { VirtualAccountRow } from './virtual-accounts.repository.js';

// What the API shows of an account and of a ledger entry: pure, so the bench's raw twin answers with
// the very same shapes (bench/raw.ts).

/** A virtual account as the API shows it. */
export function accountView(row: Omit<VirtualAccountRow, 'partner_id'>) {
  const balanceKobo = Number(row.balance_kobo);
  const availableKobo = balanceKobo - Number(row.held_kobo);
  return {
    id: row.id,
    account_number: row.account_number,
    account_name: row.account_name,
    bank_name: row.bank_name,
    bank_code: row.bank_code,
    currency: 'NGN' as const,
    status: row.status,
    status_reason: row.status_reason,
    status_changed_at: row.status_changed_at === null ? null : toIso(row.status_changed_at),
    balance: koboToNaira(balanceKobo),
    balance_kobo: balanceKobo,
    // What transfers still pending or processing hold is not available.
    available_balance: koboToNaira(availableKobo),
    available_balance_kobo: availableKobo,
    environment: row.environment,
    customer: {
      first_name: row.first_name,
      last_name: row.last_name,
      email: row.customer_email,
      phone: row.phone,
    },
    created_at: toIso(row.created_at),
  };
}

/** A ledger entry as the API shows it. */
export function transactionView(row: EntryRow) {
  return {
    id: row.id,
    type: row.type,
    kind: row.kind,
    amount: koboToNaira(row.amount_kobo),
    amount_kobo: row.amount_kobo,
    balance_after: koboToNaira(row.balance_after_kobo),
    balance_after_kobo: row.balance_after_kobo,
    currency: 'NGN' as const,
    narration: row.narration,
    reference: row.reference,
    session_id: row.session_id,
    counterparty:
      row.counterparty_account_number === null
        ? null
        : {
            account_name: row.counterparty_account_name ?? '',
            account_number: row.counterparty_account_number,
            bank_code: row.counterparty_bank_code ?? '',
            bank_name: row.counterparty_bank_name,
          },
    transfer_id: row.transfer_id,
    created_at: toIso(row.created_at),
  };
}
