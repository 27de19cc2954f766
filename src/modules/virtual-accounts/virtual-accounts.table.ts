import type { Environment } from '../../platform/environment.js';

export interface VirtualAccountsTable {
  id: string;
  partner_id: number;
  environment: Environment;
  account_number: string;
  bank_code: string;
  bank_name: string;
  account_name: string;
  currency: 'NGN';
  status: 'active';
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
