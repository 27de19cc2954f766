import type { Generated } from 'kysely';
import type { UserRole } from '../../platform/auth/roles.js';
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
  /** The dashboard user signed in (every session since 2026-11-30-01 has one). */
  user_id: string;
  environment: Environment;
  created_at: number;
  expires_at: number;
  /** 1 when the login that made it checked a second factor, else 0. */
  second_factor: Generated<number>;
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

/**
 * A person who signs in to a business's dashboard. Removed users stay (removed_at) so the audit trail
 * can name them; an address belongs to at most one user not removed, across every business.
 */
export interface PartnerUsersTable {
  id: string;
  partner_id: number;
  /** Lower-cased, as the API takes e-mail addresses. */
  email: string;
  name: string;
  password_hash: string;
  role: UserRole;
  /** Who invited them; null for the registering owner. */
  created_by_user_id: string | null;
  created_at: number;
  updated_at: number;
  last_login_at: number | null;
  removed_at: number | null;
  /** The second factor (second-factor.table.ts, docs/decisions.md "Dashboard second factor"). */
  totp_secret: string | null;
  totp_pending_secret: string | null;
  totp_last_step: number | null;
  second_factor_failures: Generated<number>;
  second_factor_locked_at: number | null;
  second_factor_enrolled_at: number | null;
}

/** An invitation to become a user: only the token's hash is kept; 72 hours, accepted once. */
export interface PartnerInvitationsTable {
  id: string;
  partner_id: number;
  email: string;
  role: UserRole;
  token_hash: string;
  invited_by_user_id: string;
  expires_at: number;
  accepted_at: number | null;
  accepted_user_id: string | null;
  revoked_at: number | null;
  created_at: number;
}

export interface AccountsTables {
  partner_users: PartnerUsersTable;
  partner_invitations: PartnerInvitationsTable;
  one_time_codes: OneTimeCodesTable;
  sessions: SessionsTable;
  login_attempts: LoginAttemptsTable;
  throttles: ThrottlesTable;
}
