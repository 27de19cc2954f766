import type { QueryClient } from '@tanstack/react-query';
import { setCsrfToken } from './api/operator-session';
import type { OperatorSession } from './api/operator-types';
import { adminKeys, operatorSessionKey } from './query-keys';

/**
 * What the page knows of its session: the signed-in operator's, or none and why: `ended` when
 * there was one and it ran out (idle, 8 hours, ended elsewhere), `signed-out` when the operator
 * left. Sign-in says which.
 */
export interface SessionState {
  session: OperatorSession | null;
  gone: 'ended' | 'signed-out' | null;
}

/** A session just opened (sign-in, accepted invitation): the page holds its anti-forgery token. */
export function rememberSession(queryClient: QueryClient, session: OperatorSession): void {
  setCsrfToken(session.csrf_token);
  queryClient.setQueryData<SessionState>(operatorSessionKey, { session, gone: null });
}

/** The session is gone: nothing read with it stays in memory. */
export function forgetSession(queryClient: QueryClient, why: 'ended' | 'signed-out'): void {
  setCsrfToken(null);
  queryClient.removeQueries({ queryKey: adminKeys.all });
  queryClient.setQueryData<SessionState>(operatorSessionKey, { session: null, gone: why });
}
