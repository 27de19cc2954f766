import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { partnerApi } from '@/lib/api/partner-api';
import type { SecondFactorStatus } from '@/lib/api/partner-types';
import { partnerKeys } from '@/lib/partner-query-keys';

const MINE = '/baas/api/v1/services/partner/settings/users/me/second-factor';
const USERS = '/baas/api/v1/services/partner/settings/users';

export type { SecondFactorStatus };

/** The signed-in user's own second factor: on or off, since when, and whether this session used it. */
export const secondFactorQuery = queryOptions({
  queryKey: partnerKeys.secondFactor,
  queryFn: ({ signal }) => unwrap(partnerApi.GET(MINE, { signal })),
});

/** A new pending secret (and otpauth URL); nothing changes until its first code is confirmed. */
export function useStartSecondFactor() {
  return useMutation({ mutationFn: () => unwrap(partnerApi.POST(MINE)) });
}

/** The app's first code turns the factor on; the answer carries the recovery codes, this once. */
export function useConfirmSecondFactor() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (code: string) => unwrap(partnerApi.POST(`${MINE}/confirm`, { body: { code } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: partnerKeys.secondFactor }),
  });
}

/** Turns one's own factor off, with the password (409 SECOND_FACTOR_ENFORCED under `everyone`). */
export function useDisableSecondFactor() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (password: string) => unwrap(partnerApi.DELETE(MINE, { body: { password } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: partnerKeys.secondFactor }),
  });
}

/** An owner or admin clears another user's factor (a lost phone, a locked factor). */
export function useResetSecondFactor() {
  return useMutation({
    mutationFn: (id: string) =>
      unwrap(partnerApi.POST(`${USERS}/{id}/second-factor/reset`, { params: { path: { id } } })),
  });
}
