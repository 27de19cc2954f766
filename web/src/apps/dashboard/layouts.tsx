import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Navigate, Outlet, useLocation, useOutletContext } from 'react-router';
import { AppShell } from '@/components/layout/app-shell';
import { AriaRouter } from '@/components/layout/aria-router';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Loading } from '@/components/ui/loading';
import { usePartnerSession } from '@/features/dashboard/auth/api/session';
import { AccountMenu } from '@/features/dashboard/auth/components/account-menu';
import { EnvironmentBanner } from '@/features/dashboard/environment/components/environment-banner';
import { useProfile } from '@/features/dashboard/onboarding/api/profile';
import { errorMessage } from '@/lib/api/api-error';
import { onPartnerSessionEnded } from '@/lib/api/partner-session';
import type { OnboardingProfile, PartnerSession } from '@/lib/api/partner-types';
import { forgetPartnerSession } from '@/lib/partner-session-cache';
import { signInPath } from '@/lib/return-path';
import { DashboardNav } from './dashboard-nav';
import './dashboard.css';

export const APP_NAME = 'Partner dashboard';

/** Pages about signing in: never a place to come back to afterwards. */
export const SIGNED_OUT_PAGES = ['/sign-in', '/sign-up', '/verify', '/forgot-password', '/reset-password'];

/**
 * Every page: the shell (with the sections, the environment switch and the business once signed
 * in) and the watch for an ended session: a 401 on any request drops what was loaded and goes to
 * sign-in, which comes back here afterwards.
 */
export function DashboardLayout() {
  const session = usePartnerSession();
  const partner = session.data?.session ?? null;
  const queryClient = useQueryClient();

  // A 401 to any request of a signed-in page: the session is over. The signed-in pages then send
  // to sign-in (RequirePartner), which brings the partner back here afterwards.
  useEffect(() => onPartnerSessionEnded(() => forgetPartnerSession(queryClient, 'ended')), [queryClient]);

  return (
    <AriaRouter>
      <AppShell
        appName={APP_NAME}
        headerNote="For partner businesses"
        navigation={partner ? <DashboardNav /> : undefined}
        account={
          partner ? (
            <div className="app-account">
              <AccountMenu session={partner} />
            </div>
          ) : undefined
        }
        footer={
          <>
            <p>Banking-as-a-service for fintech partners.</p>
            {/* Outside the app: a plain link, not one through the router. */}
            <a href="/docs">API reference</a>
          </>
        }
      >
        <Outlet />
      </AppShell>
    </AriaRouter>
  );
}

export interface PartnerContext {
  session: PartnerSession;
  /** The onboarding profile, once loaded: what live access, live keys and team members depend on. */
  profile: OnboardingProfile | undefined;
}

/** The pages behind sign-in: without a session, sign-in first and back here after. */
export function RequirePartner() {
  const session = usePartnerSession();
  const location = useLocation();
  if (session.isPending) return <Loading />;
  if (session.isError) {
    return (
      <Alert tone="error" title="The dashboard could not reach the service.">
        <p>{errorMessage(session.error)}</p>
        <Button variant="secondary" size="small" onPress={() => session.refetch()}>
          Try again
        </Button>
      </Alert>
    );
  }
  const partner = session.data.session;
  if (!partner) {
    if (session.data.signedOut) return <Navigate to="/sign-in" replace state={{ notice: 'signed-out' }} />;
    return (
      <Navigate
        to={signInPath(`${location.pathname}${location.search}`, SIGNED_OUT_PAGES)}
        replace
        state={session.data.ended ? { notice: 'session-ended' } : null}
      />
    );
  }
  return <SignedInOutlet session={partner} />;
}

function SignedInOutlet({ session }: { session: PartnerSession }) {
  const profile = useProfile();
  return (
    <>
      <EnvironmentBanner
        environment={session.environment}
        onboardingStatus={profile.data?.onboarding_status}
      />
      <Outlet context={{ session, profile: profile.data } satisfies PartnerContext} />
    </>
  );
}

/** The signed-in partner and profile, inside RequirePartner. */
export const usePartner = () => useOutletContext<PartnerContext>();
