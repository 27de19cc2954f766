import { toIso } from '../../platform/clock.js';
import { maskBvn } from '../../platform/crypto/bvn.js';
import type { Environment } from '../../platform/environment.js';
import type {
  DocumentRow,
  KycCheckRow,
  PartnerProfileRow,
  PendingDocuments,
  ProfileRecord,
  RepresentativeRow,
} from './onboarding.repository.js';
import { checklistOf, type OnboardingState, requirementsOf } from './requirements.js';

/** A partner's onboarding as stored: the rows every view and rule reads. */
export interface OnboardingRecord {
  partner: PartnerProfileRow;
  representative: RepresentativeRow | undefined;
  /** The current (not superseded) document of each type. */
  documents: DocumentRow[];
}

/** What the rules of requirements.ts read from the rows. */
export function stateOf({ partner, representative, documents }: ProfileRecord): OnboardingState {
  return {
    onboardingStatus: partner.onboarding_status,
    businessType: partner.business_type,
    reviewNotes: partner.review_notes,
    representative: representative
      ? { kycStatus: representative.kyc_status, kycMessage: representative.kyc_message }
      : null,
    documents: documents.map((document) => ({
      documentType: document.document_type,
      status: document.status,
      rejectionReason: document.rejection_reason,
    })),
  };
}

/** The business as registered and described, in both the partner's and the operator's view. */
const businessFields = (partner: ProfileRecord['partner']) => ({
  company_id: partner.id,
  business_name: partner.business_name,
  legal_business_name: partner.legal_business_name,
  business_type: partner.business_type,
  rc_number: partner.rc_number,
  address: partner.address,
  website: partner.website,
  email: partner.email,
  phone: partner.phone,
});

/** The partner's own view (GET business-info). */
export function profileView(record: ProfileRecord, environment: Environment) {
  const { partner, representative, documents } = record;
  const state = stateOf(record);
  return Object.assign(businessFields(partner), {
    onboarding_status: partner.onboarding_status,
    environment,
    representative: representative
      ? {
          first_name: representative.first_name,
          last_name: representative.last_name,
          email: representative.email,
        }
      : null,
    documents: documents.map((document) => ({
      id: document.id,
      document_type: document.document_type,
      status: document.status,
      rejection_reason: document.rejection_reason,
      uploaded_at: toIso(document.uploaded_at),
    })),
    document_checklist: checklistOf(state),
    review_notes: partner.review_notes,
    requirements: requirementsOf(state),
  });
}

/** The operator's full view of a partner: BVN masked, KYC history, every document with its source. */
export function partnerRecordView(
  record: OnboardingRecord,
  allDocuments: DocumentRow[],
  checks: KycCheckRow[],
) {
  const { partner, representative } = record;
  const state = stateOf(record);
  return Object.assign(businessFields(partner), {
    verified: partner.verified_at !== null,
    onboarding_status: partner.onboarding_status,
    review_notes: partner.review_notes,
    created_at: toIso(partner.created_at),
    representative: representative
      ? {
          first_name: representative.first_name,
          last_name: representative.last_name,
          email: representative.email,
          phone: representative.phone,
          dob: representative.dob,
          gender: representative.gender,
          designation: representative.designation,
          id_type: representative.id_type,
          id_document_id: representative.id_document_id,
          address: representative.address,
          bvn: maskBvn(representative.bvn_last4),
          bvn_locked: representative.bvn_verified_at !== null,
          kyc: {
            status: representative.kyc_status,
            message: representative.kyc_message,
            provider: representative.kyc_provider,
            checked_at: toIso(representative.kyc_checked_at),
          },
        }
      : null,
    documents: allDocuments.map((document) => ({
      id: document.id,
      document_type: document.document_type,
      status: document.status,
      rejection_reason: document.rejection_reason,
      source: document.file_url === null ? ('upload' as const) : ('url' as const),
      file_url: document.file_url,
      content_type: document.content_type,
      size_bytes: document.size_bytes,
      uploaded_at: toIso(document.uploaded_at),
      reviewed_at: document.reviewed_at === null ? null : toIso(document.reviewed_at),
      current: document.superseded_at === null,
      file_deleted_at: document.file_deleted_at === null ? null : toIso(document.file_deleted_at),
    })),
    kyc_checks: checks.map((check) => ({
      id: check.id,
      provider: check.provider,
      outcome: check.outcome,
      reason: check.reason,
      message: check.message,
      bvn: maskBvn(check.bvn_last4),
      created_at: toIso(check.created_at),
    })),
    document_checklist: checklistOf(state),
    requirements: requirementsOf(state),
  });
}

/**
 * A line of the operator's review queue; `pending`: its current documents awaiting review. It waits
 * since its submission (an application under review changes only by the operator's decision) or
 * since the oldest document awaiting review.
 */
export function partnerSummaryView(partner: PartnerProfileRow, pending: PendingDocuments | undefined) {
  const waitingSince =
    partner.onboarding_status === 'under_review' ? partner.updated_at : (pending?.oldestAt ?? null);
  return {
    company_id: partner.id,
    pending_review: [
      ...(partner.onboarding_status === 'under_review' ? ['application'] : []),
      ...(pending?.types ?? []).map((type) => `documents.${type}`),
    ],
    waiting_since: waitingSince === null ? null : toIso(waitingSince),
    business_name: partner.business_name,
    legal_business_name: partner.legal_business_name,
    email: partner.email,
    business_type: partner.business_type,
    onboarding_status: partner.onboarding_status,
    created_at: toIso(partner.created_at),
    updated_at: toIso(partner.updated_at),
  };
}

/** A document as the operator decided it. */
export const reviewedDocumentView = (document: DocumentRow) => ({
  id: document.id,
  document_type: document.document_type,
  status: document.status,
  rejection_reason: document.rejection_reason,
  reviewed_at: toIso(document.reviewed_at ?? 0),
});
