export const BUSINESS_TYPES = [
  'limited_liability',
  'public_limited',
  'sole_proprietorship',
  'partnership',
  'incorporated_trustees',
] as const;
export type BusinessType = (typeof BUSINESS_TYPES)[number];

export const ONBOARDING_STATUSES = [
  'in_progress',
  'under_review',
  'active',
  'rejected',
  'suspended',
] as const;
export type OnboardingStatus = (typeof ONBOARDING_STATUSES)[number];
