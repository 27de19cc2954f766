import { Outlet, useOutletContext } from 'react-router';
import { RequireSession } from '@/components/layout/require-session';
import { usePartnerSession } from '@/features/dashboard/auth/api/session';
import { SecondFactorRequiredNotice } from '@/features/dashboard/auth/components/second-factor-required-notice';
import { EnvironmentBanner } from '@/features/dashboard/environment/components/environment-banner';
import { useProfile, useProfileRefreshOnFocus } from '@/features/dashboard/onboarding/api/profile';
import type { OnboardingProfile, PartnerSession } from '@/lib/api/partner-types';
import { SIGNED_OUT_PAGES } from './layouts';

export interface PartnerContext {
  session: PartnerSession;
  /** The onboarding profile, once loaded: what live access, live keys and directors and officers depend on. */
  profile: OnboardingProfile | undefined;
}

/** The pages behind sign-in: without a session, sign-in first and back here after. */
export function RequirePartner() {
  const session = usePartnerSession();
  return (
    <RequireSession query={session} appName="dashboard" signedOutPages={SIGNED_OUT_PAGES}>
      {(session) => <SignedInOutlet session={session} />}
    </RequireSession>
  );
}

function SignedInOutlet({ session }: { session: PartnerSession }) {
  const profile = useProfile();
  useProfileRefreshOnFocus();
  return (
    <>
      <EnvironmentBanner
        environment={session.environment}
        onboardingStatus={profile.data?.onboarding_status}
      />
      <SecondFactorRequiredNotice />
      <Outlet context={{ session, profile: profile.data } satisfies PartnerContext} />
    </>
  );
}

/** The signed-in partner and profile, inside RequirePartner. */
export const usePartner = () => useOutletContext<PartnerContext>();
