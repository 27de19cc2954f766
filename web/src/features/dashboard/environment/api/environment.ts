import { useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { partnerApi } from '@/lib/api/clients';
import type { Environment } from '@/lib/api/partner-types';
import { partnerKeys, partnerSessionKey } from '@/lib/partner-query-keys';
import type { PartnerSessionState } from '@/lib/partner-session-cache';

/**
 * Moves this session to sandbox or live (PUT /client/onboarding/environment). Everything read in
 * the other environment is dropped and read again: data of one environment never shows in the other.
 */
export function useSwitchEnvironment() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (environment: Environment) =>
      unwrap(partnerApi.PUT('/baas/api/v1/client/onboarding/environment', { body: { environment } })),
    onSuccess: async ({ environment }) => {
      queryClient.setQueryData<PartnerSessionState>(partnerSessionKey, (state) =>
        state?.session ? { ...state, session: { ...state.session, environment } } : state,
      );
      await queryClient.resetQueries({ queryKey: partnerKeys.all });
    },
  });
}
