import type { BusinessType, OnboardingStatus } from '../partners/partners.schemas.js';
import type { DocumentType } from './onboarding.schemas.js';

/**
 * The documents each business type must provide: the table of docs/partner-guide.md,
 * "Onboarding: profile, representative, documents".
 */
export const CHECKLISTS: Record<BusinessType, readonly DocumentType[]> = {
  limited_liability: ['cac_certificate', 'memart', 'valid_id'],
  public_limited: ['cac_certificate', 'memart', 'cac_status_report', 'board_resolution', 'valid_id'],
  sole_proprietorship: ['cac_certificate', 'cac_status_report', 'valid_id', 'proof_of_address'],
  partnership: ['cac_certificate', 'cac_status_report', 'valid_id', 'proof_of_address'],
  incorporated_trustees: ['cac_certificate', 'constitution', 'scuml_certificate', 'valid_id'],
};

export interface OnboardingState {
  onboardingStatus: OnboardingStatus;
  businessType: BusinessType | null;
  reviewNotes: string | null;
  representative: { kycStatus: string; kycMessage: string } | null;
  /** The current (not superseded) document of each type. */
  documents: ReadonlyArray<{ documentType: string; status: string; rejectionReason: string | null }>;
}

export type ChecklistState = 'uploaded' | 'missing';

/** `uploaded` when the current document of the type is pending review or approved. */
export function checklistOf(state: OnboardingState): Record<string, ChecklistState> {
  if (!state.businessType) return {};
  const checklist: Record<string, ChecklistState> = {};
  for (const type of CHECKLISTS[state.businessType]) {
    const document = state.documents.find((candidate) => candidate.documentType === type);
    checklist[type] = document && document.status !== 'rejected' ? 'uploaded' : 'missing';
  }
  return checklist;
}

/**
 * What stands between the partner and submission, keyed as in `requirements` (docs/partner-guide.md,
 * "Onboarding status").
 */
export function submissionGaps(state: OnboardingState): Record<string, string[]> {
  const gaps: Record<string, string[]> = {};
  if (!state.businessType) gaps['business_type'] = ['missing'];
  if (!state.representative) gaps['representative'] = ['missing'];
  else if (state.representative.kycStatus !== 'passed') gaps['representative.kyc'] = ['not passed'];
  for (const [type, entry] of Object.entries(checklistOf(state))) {
    if (entry === 'missing') gaps[`documents.${type}`] = ['missing'];
  }
  return gaps;
}

/** What the operator's approval needs beyond submission: every checklist document approved. */
export function approvalGaps(state: OnboardingState): Record<string, string[]> {
  const gaps = submissionGaps(state);
  if (!state.businessType) return gaps;
  for (const type of CHECKLISTS[state.businessType]) {
    const document = state.documents.find((candidate) => candidate.documentType === type);
    if (document?.status === 'pending_review') gaps[`documents.${type}`] = ['not approved'];
  }
  return gaps;
}

export interface Requirements {
  currently_due: string[];
  pending_review: string[];
  errors: Array<{ requirement: string; reason: string }>;
}

/** One place that says what the partner must do, what awaits the operator, and why anything failed. */
export function requirementsOf(state: OnboardingState): Requirements {
  const errors: Requirements['errors'] = [];
  const pendingReview: string[] = [];
  const currentlyDue = state.onboardingStatus === 'in_progress' ? Object.keys(submissionGaps(state)) : [];
  if (state.onboardingStatus === 'in_progress' && currentlyDue.length === 0) currentlyDue.push('submit');

  for (const document of state.documents) {
    const requirement = `documents.${document.documentType}`;
    if (document.status === 'pending_review') pendingReview.push(requirement);
    if (document.status === 'rejected') {
      errors.push({ requirement, reason: document.rejectionReason ?? 'rejected by the reviewer' });
    }
  }
  if (state.representative && state.representative.kycStatus !== 'passed') {
    errors.push({ requirement: 'representative.kyc', reason: state.representative.kycMessage });
  }
  if (state.onboardingStatus === 'under_review') pendingReview.push('application');
  if (
    state.reviewNotes &&
    (state.onboardingStatus === 'in_progress' ||
      state.onboardingStatus === 'rejected' ||
      state.onboardingStatus === 'suspended')
  ) {
    errors.push({ requirement: 'application', reason: state.reviewNotes });
  }
  return { currently_due: currentlyDue, pending_review: pendingReview, errors };
}
