import { OnboardingPage } from '@/features/dashboard/onboarding/components/onboarding-page';

export function OnboardingRoute() {
  return <OnboardingPage />;
}
