import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { partnerApi } from '@/lib/api/partner-api';
import type { SecondFactorPolicy, SecuritySettings } from '@/lib/api/partner-types';
import { partnerKeys } from '@/lib/partner-query-keys';

const PATH = '/baas/api/v1/services/partner/settings/security';

export type { SecondFactorPolicy, SecuritySettings };

/** What dashboard sessions need a second factor for. */
export const securityQuery = queryOptions({
  queryKey: partnerKeys.security,
  queryFn: ({ signal }) => unwrap(partnerApi.GET(PATH, { signal })),
});

/** Owners only; `everyone` takes a session made with a second factor (403 SECOND_FACTOR_REQUIRED). */
export function useSaveSecurity() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (second_factor: SecondFactorPolicy) =>
      unwrap(partnerApi.PUT(PATH, { body: { second_factor } })),
    onSuccess: (data) => {
      queryClient.setQueryData(partnerKeys.security, data);
      return queryClient.invalidateQueries({ queryKey: partnerKeys.secondFactor });
    },
  });
}
