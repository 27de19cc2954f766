import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { partnerApi } from '@/lib/api/partner-api';
import type { NotificationPreference } from '@/lib/api/partner-types';
import { partnerKeys } from '@/lib/partner-query-keys';

const PATH = '/baas/api/v1/services/partner/settings/users/me/notifications';

export type { NotificationPreference };

/** The signed-in user's own e-mail notifications: every kind, on or off. */
export const notificationsQuery = queryOptions({
  queryKey: partnerKeys.notifications,
  queryFn: ({ signal }) => unwrap(partnerApi.GET(PATH, { signal })),
});

/** Turns one kind on or off; the answer is the whole list, put straight into the cache. */
export function useSetNotification() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ kind, enabled }: { kind: NotificationPreference['kind']; enabled: boolean }) =>
      unwrap(partnerApi.PUT(PATH, { body: { kind, enabled } })),
    onSuccess: (data) => queryClient.setQueryData(partnerKeys.notifications, data),
  });
}
