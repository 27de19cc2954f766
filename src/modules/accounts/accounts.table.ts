import type { Environment } from '../../platform/environment.js';

export type CodePurpose = 'verify' | 'reset';

/**
 * The live one-time code of an e-mail address for a purpose. Keyed by address, not account, so an
 * unknown address is counted exactly like a registered one (its code matches nothing).
 */
export interface OneTimeCodesTable {
  email: string;
  purpose: CodePurpose;
  code_hash: string;
  attempts: number;
  expires_at: number;
  created_at: number;
}

export interface SessionsTable {
  id: string;
  token_hash: string;
  partner_id: number;
  environment: Environment;
  created_at: number;
  expires_at: number;
}

/** Login attempts per e-mail in the current window (from its first attempt, 15 minutes). */
export interface LoginAttemptsTable {
  email: string;
  window_started_at: number;
  attempts: number;
}

/** One row per throttled action key; `last_at` is when the action was last allowed. */
export interface ThrottlesTable {
  key: string;
  last_at: number;
}

export interface AccountsTables {
  one_time_codes: OneTimeCodesTable;
  sessions: SessionsTable;
  login_attempts: LoginAttemptsTable;
  throttles: ThrottlesTable;
}
