import type { Environment } from '../../platform/environment.js';
import type { AccountStatus } from './virtual-accounts.schemas.js';

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
  created_at: number;
}

/** The ledger: balances are sums of these rows, never a stored number that could drift. */
export interface AccountTransactionsTable {
  id: string;
  account_id: string;
  partner_id: number;
  environment: Environment;
  type: 'credit';
  /** Integer kobo. */
  amount_kobo: number;
  narration: string | null;
  reference: string;
  created_at: number;
}
