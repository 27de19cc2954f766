import type { KycOutcome } from '../kyc/kyc.provider.js';
import type { Designation, Gender, IdType } from '../people/people.schemas.js';
import type { DocumentStatus, DocumentType } from './onboarding.schemas.js';

export interface RepresentativesTable {
  partner_id: number;
  first_name: string;
  last_name: string;
  email: string;
  phone: string;
  /** YYYY-MM-DD */
  dob: string;
  gender: Gender;
  designation: Designation;
  id_type: IdType;
  id_file_url: string | null;
  id_document_id: string | null;
  address: string;
  bvn_encrypted: string;
  bvn_hash: string;
  bvn_last4: string;
  kyc_status: KycOutcome;
  kyc_message: string;
  kyc_provider: string;
  kyc_checked_at: number;
  /** Set when a KYC check passed for this BVN: from then on the BVN cannot change. */
  bvn_verified_at: number | null;
  created_at: number;
  updated_at: number;
}

/** Every identity check, whatever its outcome. */
export interface KycChecksTable {
  id: string;
  partner_id: number;
  subject: 'representative';
  provider: string;
  outcome: KycOutcome;
  reason: string;
  message: string;
  bvn_last4: string;
  created_at: number;
}

export interface DocumentsTable {
  id: string;
  partner_id: number;
  document_type: DocumentType;
  status: DocumentStatus;
  rejection_reason: string | null;
  /** Uploaded bytes in FileStorage, or a partner-hosted URL that is never fetched. */
  storage_key: string | null;
  file_url: string | null;
  content_type: string | null;
  size_bytes: number | null;
  sha256: string | null;
  uploaded_at: number;
  reviewed_at: number | null;
  /** A newer upload of the same type replaced this one. */
  superseded_at: number | null;
  /**
   * When this document gave up its stored file: superseded before any operator decided it. From then
   * on the file is never served; `storage_key` stays set only until the file is removed.
   */
  file_deleted_at: number | null;
}

export const PROPOSAL_ACTIONS = ['approve', 'suspend', 'reinstate'] as const;
export type ProposalAction = (typeof PROPOSAL_ACTIONS)[number];
export const PROPOSAL_STATUSES = ['pending', 'confirmed', 'declined', 'withdrawn', 'void'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

/**
 * Four eyes (docs/operator-guide.md): a decision one admin proposed, waiting for another. Settled
 * once, by one conditional UPDATE from `pending`: confirmed or declined by another admin, withdrawn by
 * its proposer, or void when the partner's onboarding_status moved first.
 */
export interface DecisionProposalsTable {
  id: string;
  partner_id: number;
  action: ProposalAction;
  /** What the partner will read (review_notes): a suspension's reason. */
  reason: string | null;
  /** Operators only, as on the decision itself. */
  internal_note: string | null;
  status: ProposalStatus;
  proposed_by_type: 'operator' | 'api_key';
  /** The proposing operator; null for ADMIN_API_KEY. */
  proposed_by_id: string | null;
  settled_by_type: 'operator' | 'api_key' | null;
  settled_by_id: string | null;
  settled_at: number | null;
  decline_reason: string | null;
  created_at: number;
}

export interface OnboardingTables {
  representatives: RepresentativesTable;
  kyc_checks: KycChecksTable;
  documents: DocumentsTable;
  decision_proposals: DecisionProposalsTable;
}
