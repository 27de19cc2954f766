import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { unwrap } from '@/lib/api/api-error';
import { partnerApi } from '@/lib/api/partner-api';
import type { BusinessType } from '@/lib/api/partner-types';
import { partnerKeys } from '@/lib/partner-query-keys';

/** How often the profile is read again while the operator's decision is pending. */
export const PENDING_DECISION_POLL_MS = 5_000;

/**
 * The onboarding profile with its `requirements` (GET /client/onboarding/business-info). The
 * operator decides elsewhere, so while the application is under review it is read again every 5 s
 * (in a visible tab only) and the page shows the decision without a reload.
 */
export const profileQuery = queryOptions({
  queryKey: partnerKeys.profile,
  queryFn: ({ signal }) => unwrap(partnerApi.GET('/baas/api/v1/client/onboarding/business-info', { signal })),
  refetchInterval: (query) =>
    query.state.data?.onboarding_status === 'under_review' ? PENDING_DECISION_POLL_MS : false,
});

export const useProfile = () => useQuery(profileQuery);

/**
 * Reads the profile again when the window gets focus or the tab is shown again: an approval,
 * suspension or reinstatement made meanwhile shows at once. Used once, by the signed-in layout;
 * TanStack Query's own refetchOnWindowFocus listens to visibilitychange only, not to focus.
 */
export function useProfileRefreshOnFocus(): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    const refresh = () => {
      if (document.visibilityState === 'visible') {
        void queryClient.invalidateQueries({ queryKey: partnerKeys.profile });
      }
    };
    window.addEventListener('focus', refresh);
    document.addEventListener('visibilitychange', refresh);
    return () => {
      window.removeEventListener('focus', refresh);
      document.removeEventListener('visibilitychange', refresh);
    };
  }, [queryClient]);
}

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
