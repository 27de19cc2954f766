import type { Generated } from 'kysely';
import type { OperatorRole, OperatorStatus } from './operators.schemas.js';

export interface OperatorsTable {
  id: string;
  /** Lower-cased. */
  email: string;
  name: string;
  role: OperatorRole;
  status: OperatorStatus;
  password_hash: string;
  /** The TOTP secret, AES-GCM sealed; null after an admin reset until a new one is enrolled. */
  totp_secret: string | null;
  /** The last TOTP time step accepted: a code is never accepted twice. */
  totp_last_step: number | null;
  /**
   * Second-factor checks since the last success, each reserved before its code is checked: a check
   * runs only while it is below the lock threshold, however many are sent at once.
   */
  second_factor_failures: Generated<number>;
  /** When the failures reached the threshold: sign-in is refused until an admin resets the factor. */
  second_factor_locked_at: number | null;
  last_sign_in_at: number | null;
  created_at: number;
  updated_at: number;
}

export type InvitationPurpose = 'invite' | 'reset_second_factor';

export interface OperatorInvitationsTable {
  id: string;
  /** SHA-256 of the one-time token of the link: the token itself is never stored. */
  token_hash: string;
  purpose: InvitationPurpose;
  email: string;
  role: OperatorRole;
  /** The operator whose second factor is reset (purpose reset_second_factor). */
  operator_id: string | null;
  /** The operator who invited, or null for the command line and ADMIN_API_KEY. */
  created_by: string | null;
  /** Chosen at set-up, kept until the second factor is confirmed. */
  pending_name: string | null;
  pending_password_hash: string | null;
  pending_totp_secret: string | null;
  expires_at: number;
  accepted_at: number | null;
  revoked_at: number | null;
  created_at: number;
}

export interface OperatorRecoveryCodesTable {
  /** HMAC of the code. */
  code_hash: string;
  operator_id: string;
  used_at: number | null;
  created_at: number;
}

/** A sign-in whose password was right, waiting for the second factor. */
export interface OperatorSignInsTable {
  token_hash: string;
  operator_id: string;
  attempts: number;
  expires_at: number;
  created_at: number;
}

export interface OperatorSessionsTable {
  token_hash: string;
  id: string;
  operator_id: string;
  last_seen_at: number;
  /** The absolute end: 8 hours after sign-in. */
  expires_at: number;
  /** Where the session was opened, shown to its operator (its own sessions list). */
  ip: string | null;
  /** The browser's User-Agent at sign-in, cut to 256 characters. */
  user_agent: string | null;
  created_at: number;
}

export interface OperatorTables {
  operators: OperatorsTable;
  operator_invitations: OperatorInvitationsTable;
  operator_recovery_codes: OperatorRecoveryCodesTable;
  operator_sign_ins: OperatorSignInsTable;
  operator_sessions: OperatorSessionsTable;
}
