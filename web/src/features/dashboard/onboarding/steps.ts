import type { OnboardingProfile } from '@/lib/api/partner-types';

/**
 * Where one step of onboarding stands, from `requirements` (what the API says is due, waits or failed).
 * `waiting` is the partner's part done, the operator's still to come: documents uploaded before the
 * application is submitted are simply done (nobody is reviewing them yet).
 */
export type StepState = 'done' | 'todo' | 'attention' | 'waiting';

export interface StepStates {
  profile: StepState;
  representative: StepState;
  documents: StepState;
  submit: StepState;
}

const startsWith = (items: string[], prefix: string) => items.some((item) => item.startsWith(prefix));

export function stepStates(profile: OnboardingProfile): StepStates {
  const { currently_due: due, pending_review: waiting, errors } = profile.requirements;
  const failed = errors.map((error) => error.requirement);
  const status = profile.onboarding_status;

  const representative: StepState = due.includes('representative')
    ? 'todo'
    : due.includes('representative.kyc') || failed.includes('representative.kyc')
      ? 'attention'
      : profile.representative
        ? 'done'
        : 'todo';

  const checklist = Object.values(profile.document_checklist);
  const documents: StepState = startsWith(failed, 'documents.')
    ? 'attention'
    : checklist.length === 0 || startsWith(due, 'documents.')
      ? 'todo'
      : startsWith(waiting, 'documents.') && status !== 'in_progress'
        ? 'waiting'
        : 'done';

  const submit: StepState =
    status === 'active'
      ? 'done'
      : status === 'under_review'
        ? 'waiting'
        : status === 'rejected'
          ? 'attention'
          : 'todo';

  return {
    profile: profile.business_type && !due.includes('business_type') ? 'done' : 'todo',
    representative,
    documents,
    submit,
  };
}

/** Whether the partner may change this part now (the API refuses it while under review or rejected). */
export const canChangeOnboarding = (profile: OnboardingProfile) =>
  profile.onboarding_status === 'in_progress' ||
  profile.onboarding_status === 'active' ||
  profile.onboarding_status === 'suspended';
