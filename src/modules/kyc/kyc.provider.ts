/** What is checked: the person as the partner declared them. */
export interface KycSubject {
  bvn: string;
  firstName: string;
  lastName: string;
  /** YYYY-MM-DD */
  dob: string;
}

export type KycOutcome = 'passed' | 'failed' | 'error';

export interface KycResult {
  outcome: KycOutcome;
  /** Shown to the partner: never echoes the record's data. */
  message: string;
  /** Machine-readable detail for the audit trail, e.g. not_found, name_mismatch, timeout. */
  reason: string;
}

/** An identity provider's BVN check. Implementations never throw: failures are `outcome: "error"`. */
export interface KycProvider {
  readonly name: string;
  verifyBvn(subject: KycSubject): Promise<KycResult>;
}

export const RETRY_MESSAGE =
  'The identity check could not be completed right now; please retry in a few minutes.';
