import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Navigate, Outlet, useLocation, useOutletContext } from 'react-router';
import { AppShell } from '@/components/layout/app-shell';
import { AriaRouter } from '@/components/layout/aria-router';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Loading } from '@/components/ui/loading';
import { useOperatorSession } from '@/features/console/auth/api/session';
import { AccountMenu } from '@/features/console/auth/components/account-menu';
import { ServiceStatus } from '@/features/console/service-status/components/service-status';
import { errorMessage } from '@/lib/api/api-error';
import { onSessionEnded } from '@/lib/api/operator-session';
import type { OperatorIdentity } from '@/lib/api/operator-types';
import { forgetSession } from '@/lib/operator-session-cache';
import { signInPath } from '@/lib/return-path';
import { ConsoleNav } from './console-nav';

export const APP_NAME = 'Operator console';

/** Pages for signing in: never a place to come back to afterwards. */
export const SIGNED_OUT_PAGES = ['/sign-in', '/setup'];

/**
 * Every page: the shell (with the sections and the operator once signed in) and the watch for an
 * ended session: a 401 on any request drops what was loaded, and RequireOperator sends the
 * operator to sign-in, which comes back to the page afterwards.
 */
export function ConsoleLayout() {
  const session = useOperatorSession();
  const operator = session.data?.session?.operator ?? null;
  const queryClient = useQueryClient();

  useEffect(
    () =>
      onSessionEnded(() => {
        forgetSession(queryClient, 'ended');
      }),
    [queryClient],
  );

  return (
    <AriaRouter>
      <AppShell
        appName={APP_NAME}
        headerNote="For the compliance team"
        navigation={operator ? <ConsoleNav isAdmin={operator.role === 'admin'} /> : undefined}
        account={operator ? <AccountMenu operator={operator} /> : undefined}
        footer={
          <>
            <p>Authorised operators only. Every action is recorded in the audit log.</p>
            <ServiceStatus />
          </>
        }
      >
        <Outlet />
      </AppShell>
    </AriaRouter>
  );
}

/** The pages behind sign-in: without a session, sign-in first and back here after. */
export function RequireOperator() {
  const session = useOperatorSession();
  const location = useLocation();
  if (session.isPending) return <Loading />;
  if (session.isError) {
    return (
      <Alert tone="error" title="The console could not reach the service.">
        <p>{errorMessage(session.error)}</p>
        <Button variant="secondary" size="small" onPress={() => session.refetch()}>
          Try again
        </Button>
      </Alert>
    );
  }
  const { session: current, gone } = session.data;
  if (!current) {
    // Signing out leaves for good; otherwise sign-in comes back here.
    const to =
      gone === 'signed-out'
        ? '/sign-in'
        : signInPath(`${location.pathname}${location.search}`, SIGNED_OUT_PAGES);
    const notice = gone === 'ended' ? 'session-ended' : gone;
    return <Navigate to={to} replace state={notice ? { notice } : null} />;
  }
  return <Outlet context={current.operator} />;
}

/** The signed-in operator, inside RequireOperator. */
export const useOperator = () => useOutletContext<OperatorIdentity>();
