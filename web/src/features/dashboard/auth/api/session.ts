import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { partnerApi } from '@/lib/api/clients';
import { setPartnerCsrfToken } from '@/lib/api/partner-session';
import { partnerKeys, partnerSessionKey } from '@/lib/partner-query-keys';
import { forgetPartnerSession, type PartnerSessionState } from '@/lib/partner-session-cache';

/** The signed-in partner, from the session cookie (GET /client/onboarding/session); a 401 means none. */
export const partnerSessionQuery = queryOptions<PartnerSessionState>({
  queryKey: partnerSessionKey,
  queryFn: async ({ signal }) => {
    const result = await partnerApi.GET('/baas/api/v1/client/onboarding/session', { signal });
    if (result.response.status === 401) {
      setPartnerCsrfToken(null);
      return { session: null, ended: result.error?.error_code === 'TOKEN_EXPIRED' };
    }
    const session = await unwrap(Promise.resolve(result));
    setPartnerCsrfToken(session.csrf_token);
    return { session, ended: false };
  },
  // The session changes only by signing in or out, switching environment, or ending (a 401 anywhere).
  staleTime: Number.POSITIVE_INFINITY,
  retry: false,
});

export const usePartnerSession = () => useQuery(partnerSessionQuery);

/** Logs in with a cookie session (the token never reaches page scripts), then reads who is signed in. */
export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: { email: string; password: string }) => {
      const login = await unwrap(
        partnerApi.POST('/baas/api/v1/client/onboarding/login', { body: { ...body, session: 'cookie' } }),
      );
      setPartnerCsrfToken(login.csrf_token ?? null);
      queryClient.removeQueries({ queryKey: partnerKeys.all });
      return queryClient.fetchQuery({ ...partnerSessionQuery, staleTime: 0 });
    },
  });
}

export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(partnerApi.POST('/baas/api/v1/client/onboarding/logout')),
    // Signed out on the page whatever the answer: a 401 means the session had ended anyway.
    onSettled: () => forgetPartnerSession(queryClient, 'signed-out'),
  });
}
