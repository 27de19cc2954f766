import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { partnerApi, partnerSession } from '@/lib/api/partner-api';
import type { PartnerSession } from '@/lib/api/partner-types';
import type { SessionState } from '@/lib/api/session-channel';

/** The signed-in partner, from the session cookie (GET /client/onboarding/session). */
export const partnerSessionQuery = queryOptions<SessionState<PartnerSession>>({
  queryKey: partnerSession.sessionKey,
  queryFn: ({ signal }) =>
    partnerSession.read(partnerApi.GET('/baas/api/v1/client/onboarding/session', { signal })),
  // The session changes only by signing in or out, switching environment, or ending (a 401 anywhere).
  staleTime: Number.POSITIVE_INFINITY,
  retry: false,
});

export const usePartnerSession = () => useQuery(partnerSessionQuery);

/**
 * Logs in with a cookie session (the token never reaches page scripts), then reads who is signed in.
 * A user with a second factor gets no session yet: the answer is the challenge for the code step.
 */
export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: { email: string; password: string }) => {
      const login = await unwrap(
        partnerApi.POST('/baas/api/v1/client/onboarding/login', { body: { ...body, session: 'cookie' } }),
      );
      if ('second_factor_required' in login) return { challengeToken: login.challenge_token };
      partnerSession.signedIn(queryClient, login.csrf_token ?? null);
      return { session: await queryClient.fetchQuery({ ...partnerSessionQuery, staleTime: 0 }) };
    },
  });
}

/** The login's second step: the authenticator's 6 digits, or else a recovery code. */
export function useSignInSecondFactor() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ challengeToken, code }: { challengeToken: string; code: string }) => {
      const typed = code.trim();
      const login = await unwrap(
        partnerApi.POST('/baas/api/v1/client/onboarding/login/second-factor', {
          body: {
            challenge_token: challengeToken,
            ...(/^[0-9]{6}$/.test(typed) ? { code: typed } : { recovery_code: typed }),
            session: 'cookie',
          },
        }),
      );
      partnerSession.signedIn(queryClient, login.csrf_token ?? null);
      return queryClient.fetchQuery({ ...partnerSessionQuery, staleTime: 0 });
    },
  });
}

export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(partnerApi.POST('/baas/api/v1/client/onboarding/logout')),
    // Signed out on the page whatever the answer: a 401 means the session had ended anyway.
    onSettled: () => partnerSession.forget(queryClient, 'signed-out'),
  });
}
