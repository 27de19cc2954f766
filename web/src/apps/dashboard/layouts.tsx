import { Outlet } from 'react-router';
import { AppShell } from '@/components/layout/app-shell';
import { AriaRouter } from '@/components/layout/aria-router';
import { usePartnerSession } from '@/features/dashboard/auth/api/session';
import { AccountMenu } from '@/features/dashboard/auth/components/account-menu';
import { partnerSession } from '@/lib/api/partner-api';
import { sessionUserOf } from '@/lib/api/partner-types';
import { useForgetEndedSession } from '@/lib/api/session-channel';
import { RoleProvider } from '@/lib/partner-roles';
import { DashboardNav } from './dashboard-nav';
import './dashboard.css';

export const APP_NAME = 'Partner dashboard';

/** Pages about signing in: never a place to come back to afterwards. */
export const SIGNED_OUT_PAGES = [
  '/sign-in',
  '/sign-up',
  '/verify',
  '/forgot-password',
  '/reset-password',
  '/accept-invitation',
];

/**
 * Every page: the shell (with the sections, the environment switch and the business once signed
 * in) and the watch for an ended session: a 401 on any request drops what was loaded and goes to
 * sign-in, which comes back here afterwards. The signed-in user's role (from the session) tells
 * every page what to hide or disable.
 */
export function DashboardLayout() {
  const session = usePartnerSession();
  const partner = session.data?.session ?? null;
  useForgetEndedSession(partnerSession);
  const { user, permissions } = partner ? sessionUserOf(partner) : { user: null, permissions: null };

  return (
    <RoleProvider
      value={{ role: user?.role ?? null, permissions, environment: partner?.environment ?? 'sandbox' }}
    >
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
    </RoleProvider>
  );
}
