import { Badge, type BadgeTone } from '@/components/ui/badge';
import type { OnboardingStatus } from '@/lib/api/operator-types';
import { ONBOARDING_STATUS_LABELS } from '@/lib/onboarding-labels';

const TONES: Record<OnboardingStatus, BadgeTone> = {
  in_progress: 'neutral',
  under_review: 'info',
  active: 'success',
  suspended: 'warning',
  rejected: 'danger',
};

export function OnboardingStatusBadge({ status }: { status: OnboardingStatus }) {
  return <Badge tone={TONES[status]}>{ONBOARDING_STATUS_LABELS[status]}</Badge>;
}
