import type { Generated } from 'kysely';
import type { Environment } from '../../platform/environment.js';
import type { BusinessType, OnboardingStatus } from '../onboarding/onboarding.schemas.js';

/** Timestamps are epoch milliseconds (bigint) on both dialects. */
export interface PartnersTable {
  id: Generated<number>;
  email: string;
  business_name: string;
  legal_business_name: string;
  phone: string;
  password_hash: string;
  verified_at: number | null;
  /** When a code was last issued for the account; unverified accounts go 24 hours later. */
  last_code_at: number | null;
  business_type: BusinessType | null;
  rc_number: string | null;
  address: string | null;
  website: string | null;
  onboarding_status: OnboardingStatus;
  /** When the application was first submitted; until then business_name and phone may be corrected. */
  first_submitted_at: number | null;
  review_notes: string | null;
  created_at: number;
  updated_at: number;
}

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
  partners: PartnersTable;
  one_time_codes: OneTimeCodesTable;
  sessions: SessionsTable;
  login_attempts: LoginAttemptsTable;
  throttles: ThrottlesTable;
}
