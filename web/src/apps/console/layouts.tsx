import { Outlet, useOutletContext } from 'react-router';
import { AppShell } from '@/components/layout/app-shell';
import { AriaRouter } from '@/components/layout/aria-router';
import { RequireSession } from '@/components/layout/require-session';
import { useOperatorSession } from '@/features/console/auth/api/session';
import { AccountMenu } from '@/features/console/auth/components/account-menu';
import { ServiceStatus } from '@/features/console/service-status/components/service-status';
import { operatorSession } from '@/lib/api/operator-api';
import type { OperatorIdentity } from '@/lib/api/operator-types';
import { useForgetEndedSession } from '@/lib/api/session-channel';
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
  useForgetEndedSession(operatorSession);

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
  return (
    <RequireSession query={session} appName="console" signedOutPages={SIGNED_OUT_PAGES}>
      {(session) => <Outlet context={session.operator} />}
    </RequireSession>
  );
}

/** The signed-in operator, inside RequireOperator. */
export const useOperator = () => useOutletContext<OperatorIdentity>();
