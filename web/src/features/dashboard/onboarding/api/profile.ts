import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { partnerApi } from '@/lib/api/partner-api';
import type { BusinessType } from '@/lib/api/partner-types';
import { partnerKeys } from '@/lib/partner-query-keys';

/** The onboarding profile with its `requirements` (GET /client/onboarding/business-info). */
export const profileQuery = queryOptions({
  queryKey: partnerKeys.profile,
  queryFn: ({ signal }) => unwrap(partnerApi.GET('/baas/api/v1/client/onboarding/business-info', { signal })),
});

export const useProfile = () => useQuery(profileQuery);

export interface ProfileChanges {
  legal_business_name?: string;
  business_type?: BusinessType;
  rc_number?: string;
  address?: string;
  website?: string;
}

/** A partial update; the answer is the whole profile, requirements included. */
export function useUpdateProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ProfileChanges) =>
      unwrap(partnerApi.PUT('/baas/api/v1/client/onboarding/business-info', { body })),
    onSuccess: (profile) => queryClient.setQueryData(partnerKeys.profile, profile),
  });
}

/** in_progress → under_review; a gap answers 409 ONBOARDING_INCOMPLETE naming each one. */
export function useSubmitApplication() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(partnerApi.POST('/baas/api/v1/client/onboarding/submit')),
    onSuccess: (profile) => queryClient.setQueryData(partnerKeys.profile, profile),
    onError: () => queryClient.invalidateQueries({ queryKey: partnerKeys.profile }),
  });
}
