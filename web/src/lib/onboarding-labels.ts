import type { DocumentType, OnboardingStatus } from './api/operator-types';

/**
 * Names of the API's onboarding values as a compliance reviewer reads them: docs/partner-guide.md,
 * "Onboarding status" and "Onboarding: profile, representative, documents".
 */

export const DOCUMENT_TYPE_LABELS: Record<DocumentType, string> = {
  cac_certificate: 'CAC certificate',
  memart: 'Memorandum and articles (MEMART)',
  cac_status_report: 'CAC status report',
  board_resolution: 'Board resolution',
  valid_id: "Representative's ID",
  proof_of_address: 'Proof of address',
  constitution: 'Constitution',
  scuml_certificate: 'SCUML certificate',
  tin_certificate: 'TIN certificate',
  other: 'Other document',
};

export const documentTypeLabel = (type: string): string =>
  DOCUMENT_TYPE_LABELS[type as DocumentType] ?? humanize(type);

export const ONBOARDING_STATUS_LABELS: Record<OnboardingStatus, string> = {
  in_progress: 'In progress',
  under_review: 'Under review',
  active: 'Active',
  rejected: 'Rejected',
  suspended: 'Suspended',
};

export const BUSINESS_TYPE_LABELS: Record<string, string> = {
  limited_liability: 'Limited liability company',
  public_limited: 'Public limited company',
  sole_proprietorship: 'Sole proprietorship',
  partnership: 'Partnership',
  incorporated_trustees: 'Incorporated trustees',
};

const REQUIREMENT_LABELS: Record<string, string> = {
  application: 'Application',
  business_type: 'Business type',
  submit: 'Submission',
  representative: 'Compliance representative',
  'representative.kyc': "Representative's KYC check",
};

/** `documents.memart` → "Memorandum and articles (MEMART)", `application` → "Application". */
export function requirementLabel(requirement: string): string {
  if (requirement.startsWith('documents.')) return documentTypeLabel(requirement.slice('documents.'.length));
  return REQUIREMENT_LABELS[requirement] ?? humanize(requirement);
}

/** `chief_executive_officer` → "Chief executive officer". */
export function humanize(value: string): string {
  const words = value.replace(/[._]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
