import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { operatorApi } from '@/lib/api/clients';
import { setCsrfToken } from '@/lib/api/operator-session';
import { forgetSession, rememberSession, type SessionState } from '@/lib/operator-session-cache';
import { operatorSessionKey } from '@/lib/query-keys';

/**
 * The signed-in operator, from the session cookie (GET /admin/session). A 401 means no session;
 * TOKEN_EXPIRED that the cookie's session ran out.
 */
export const sessionQuery = queryOptions<SessionState>({
  queryKey: operatorSessionKey,
  queryFn: async ({ signal }) => {
    const result = await operatorApi.GET('/baas/api/v1/admin/session', { signal });
    if (result.response.status === 401) {
      setCsrfToken(null);
      return { session: null, gone: result.error?.error_code === 'TOKEN_EXPIRED' ? 'ended' : null };
    }
    const session = await unwrap(Promise.resolve(result));
    setCsrfToken(session.csrf_token);
    return { session, gone: null };
  },
  // The session changes only by signing in or out, or ending (a 401 anywhere, see lib/api).
  staleTime: Number.POSITIVE_INFINITY,
  retry: false,
});

export const useOperatorSession = () => useQuery(sessionQuery);

/** Step one: e-mail and password; answers the challenge for step two. */
export function useStartSignIn() {
  return useMutation({
    mutationFn: (body: { email: string; password: string }) =>
      unwrap(operatorApi.POST('/baas/api/v1/admin/session/password', { body })),
  });
}

/** Step two: the authenticator's code or a recovery code; opens the session. */
export function useFinishSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { challenge: string; code: string }) =>
      unwrap(operatorApi.POST('/baas/api/v1/admin/session/second-factor', { body })),
    onSuccess: (session) => rememberSession(queryClient, session),
  });
}

export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(operatorApi.POST('/baas/api/v1/admin/session/logout')),
    // Signed out on the page whatever the answer: a 401 means the session had ended anyway.
    onSettled: () => forgetSession(queryClient, 'signed-out'),
  });
}
