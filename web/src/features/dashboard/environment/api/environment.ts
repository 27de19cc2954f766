import { useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { partnerApi, partnerSession } from '@/lib/api/partner-api';
import type { Environment, PartnerSession } from '@/lib/api/partner-types';
import type { SessionState } from '@/lib/api/session-channel';
import { partnerKeys } from '@/lib/partner-query-keys';

/**
 * Moves this session to sandbox or live (PUT /client/onboarding/environment). Everything read in
 * the other environment is dropped and read again: data of one environment never shows in the other,
 * and the role's permissions are those of the new environment.
 */
export function useSwitchEnvironment() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (environment: Environment) =>
      unwrap(partnerApi.PUT('/baas/api/v1/client/onboarding/environment', { body: { environment } })),
    onSuccess: async ({ environment }) => {
      queryClient.setQueryData<SessionState<PartnerSession>>(partnerSession.sessionKey, (state) =>
        state?.session ? { ...state, session: { ...state.session, environment } } : state,
      );
      await queryClient.resetQueries({ queryKey: partnerKeys.all });
      // What the role may do depends on the environment (a developer moves money in the sandbox
      // only): the session's permissions are read again.
      await queryClient.invalidateQueries({ queryKey: partnerSession.sessionKey });
    },
  });
}
