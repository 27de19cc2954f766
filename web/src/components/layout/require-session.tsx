import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { QueryView } from '@/components/ui/query-view';
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
  return (
    <QueryView
      query={query}
      loading="Loading…"
      errorTitle={`The ${appName} could not reach the service.`}
      canRetry
    >
      {({ session, gone }) => {
        if (session) return children(session);
        const to =
          gone === 'signed-out'
            ? '/sign-in'
            : signInPath(`${location.pathname}${location.search}`, signedOutPages);
        const notice: SessionNotice | null = gone === 'ended' ? 'session-ended' : gone;
        return <Navigate to={to} replace state={notice ? { notice } : null} />;
      }}
    </QueryView>
  );
}
