import { infiniteQueryOptions } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { operatorApi } from '@/lib/api/operator-api';
import { adminKeys } from '@/lib/operator-query-keys';

export const NOTIFICATIONS_PAGE_SIZE = 50;

/**
 * One UTC day (`YYYY-MM-DD`: a date alone as from and to is that whole day) of the bank's credit
 * notifications, newest first: only the refused ones, or all of them.
 */
export const creditNotificationsQuery = (day: string, which: 'refused' | 'all') =>
  infiniteQueryOptions({
    queryKey: [...adminKeys.creditNotifications, day, which],
    queryFn: ({ signal, pageParam }) =>
      unwrap(
        operatorApi.GET('/baas/api/v1/admin/bank/credit-notifications', {
          params: {
            query: {
              from: day,
              to: day,
              limit: NOTIFICATIONS_PAGE_SIZE,
              ...(which === 'refused' ? { outcome: 'refused' as const } : {}),
              ...(pageParam ? { cursor: pageParam } : {}),
            },
          },
          signal,
        }),
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_cursor ?? undefined,
    // Money keeps arriving: what an operator opens is what the bank reported up to now.
    staleTime: 0,
  });
