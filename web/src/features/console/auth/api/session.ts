import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { operatorApi, operatorSession } from '@/lib/api/operator-api';
import type { OperatorSession } from '@/lib/api/operator-types';
import type { SessionState } from '@/lib/api/session-channel';

/**
 * The session as the console reads it; `backOfficeOff`: the server runs without ADMIN_API_KEY,
 * so every /admin path, this one included, answers 404 until it is restarted with one.
 */
export interface ConsoleSessionState extends SessionState<OperatorSession> {
  backOfficeOff?: true;
}

/** The signed-in operator, from the session cookie (GET /admin/session). */
export const sessionQuery = queryOptions<ConsoleSessionState>({
  queryKey: operatorSession.sessionKey,
  queryFn: async ({ signal }) => {
    const answer = await operatorApi.GET('/baas/api/v1/admin/session', { signal });
    if (answer.response.status === 404) return { session: null, gone: null, backOfficeOff: true };
    return operatorSession.read(Promise.resolve(answer));
  },
  // The session changes only by signing in or out, or ending (a 401 anywhere, see lib/api).
  staleTime: Number.POSITIVE_INFINITY,
  // A failed read stays failed until "Try again": the sign-in page shown for the failure reads the
  // session too, and a fetch on its mount would put the query back to pending, unmount it, and
  // mount it again when the fetch fails, in a loop (issue 30: 2,000 requests in 17 s).
  retryOnMount: false,
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
    onSuccess: (session) => operatorSession.remember(queryClient, session),
  });
}

export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(operatorApi.POST('/baas/api/v1/admin/session/logout')),
    // Signed out on the page whatever the answer: a 401 means the session had ended anyway.
    onSettled: () => operatorSession.forget(queryClient, 'signed-out'),
  });
}
