/** A dashboard user's recovery code: only its keyed hash; used once. */
export interface PartnerUserRecoveryCodesTable {
  code_hash: string;
  user_id: string;
  used_at: number | null;
  created_at: number;
}

/**
 * The first step of a login that needs a second factor: the challenge token's hash, 5 minutes, at
 * most SECOND_FACTOR_TRIES codes, ended by its one successful use.
 */
export interface PartnerSignInsTable {
  token_hash: string;
  user_id: string;
  attempts: number;
  expires_at: number;
  created_at: number;
}

export interface SecondFactorTables {
  partner_user_recovery_codes: PartnerUserRecoveryCodesTable;
  partner_sign_ins: PartnerSignInsTable;
}
