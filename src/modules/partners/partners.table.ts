import type { Generated } from 'kysely';
import type { SecondFactorPolicy } from '../../platform/auth/roles.js';
import type { BusinessType, OnboardingStatus } from './partners.schemas.js';

/**
 * The partner record: created by the accounts module at registration (e-mail, password, business
 * name), completed and moved through onboarding_status by the onboarding module. Timestamps are
 * epoch milliseconds (bigint) on both dialects.
 */
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
  /** The latest operator decision's note for operators only (never shown to the partner). */
  internal_note: string | null;
  /** The operator working on the partner's review (claimed, or handed over by an admin). */
  assigned_operator_id: string | null;
  assigned_at: number | null;
  created_at: number;
  updated_at: number;
  /** What a dashboard session needs a second factor for (docs/decisions.md, "Dashboard second factor"). */
  second_factor_policy: Generated<SecondFactorPolicy>;
}

export interface PartnersTables {
  partners: PartnersTable;
}
