import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Loading } from '@/components/ui/loading';
import { errorMessage } from '@/lib/api/api-error';
import type { SessionState } from '@/lib/api/session-channel';
import { signInPath } from '@/lib/return-path';

/** Why sign-in was shown, in the history entry's state: `{ notice }`. */
export type SessionNotice = 'session-ended' | 'signed-out';

export interface RequireSessionProps<Session> {
  /** The app's session query. */
  query: UseQueryResult<SessionState<Session>>;
  /** The app as a sentence names it: "the console". */
  appName: string;
  /** The app's signed-out pages, never returned to after sign-in. */
  signedOutPages: readonly string[];
  /** The signed-in pages. */
  children: (session: Session) => ReactNode;
}

/**
 * The pages behind sign-in. Without a session, sign-in first (saying why: it ended, or the person
 * signed out) and back to this page after; signing out leaves for good.
 */
export function RequireSession<Session>({
  query,
  appName,
  signedOutPages,
  children,
}: RequireSessionProps<Session>) {
  const location = useLocation();
  if (query.isPending) return <Loading />;
  if (query.isError) {
    return (
      <Alert tone="error" title={`The ${appName} could not reach the service.`}>
        <p>{errorMessage(query.error)}</p>
        <Button variant="secondary" size="small" onPress={() => query.refetch()}>
          Try again
        </Button>
      </Alert>
    );
  }
  const { session, gone } = query.data;
  if (session) return children(session);
  const to =
    gone === 'signed-out' ? '/sign-in' : signInPath(`${location.pathname}${location.search}`, signedOutPages);
  const notice: SessionNotice | null = gone === 'ended' ? 'session-ended' : gone;
  return <Navigate to={to} replace state={notice ? { notice } : null} />;
}
