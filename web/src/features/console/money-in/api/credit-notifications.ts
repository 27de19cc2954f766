import { ApiError } from '@baas/sdk';
import { infiniteQueryOptions } from '@tanstack/react-query';
import { operatorSession } from '@/lib/api/operator-api';
import type { CreditNotification } from '@/lib/api/operator-types';
import { adminKeys } from '@/lib/operator-query-keys';

export const NOTIFICATIONS_PAGE_SIZE = 50;

const NOTIFICATIONS = '/baas/api/v1/admin/bank/credit-notifications';

/**
 * One UTC day (`YYYY-MM-DD`: a date alone as from and to is that whole day) of the bank's credit
 * notifications, newest first: only the refused ones, or all of them.
 */
export const creditNotificationsQuery = (day: string, which: 'refused' | 'all') =>
  infiniteQueryOptions({
    queryKey: [...adminKeys.creditNotifications, day, which],
    queryFn: async ({
      signal,
      pageParam,
    }): Promise<{ items: CreditNotification[]; next_cursor: string | null }> => {
      // Fetched by hand until the operator document (and so operatorApi's types) has the path.
      const query = new URLSearchParams({ from: day, to: day, limit: String(NOTIFICATIONS_PAGE_SIZE) });
      if (which === 'refused') query.set('outcome', 'refused');
      if (pageParam) query.set('cursor', pageParam);
      const url = `${NOTIFICATIONS}?${query}`;
      const response = await fetch(url, { credentials: 'same-origin', signal });
      operatorSession.noteResponse(url, response.status);
      const body = await response.json().catch(() => undefined);
      if (!response.ok) throw ApiError.from(response, body);
      return (body as { data: { items: CreditNotification[]; next_cursor: string | null } }).data;
    },
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_cursor ?? undefined,
    // Money keeps arriving: what an operator opens is what the bank reported up to now.
    staleTime: 0,
  });
