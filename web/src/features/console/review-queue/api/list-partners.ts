import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { operatorApi } from '@/lib/api/operator-api';
import type { OnboardingStatus } from '@/lib/api/operator-types';
import { adminKeys } from '@/lib/operator-query-keys';

/** What the queue shows: what awaits review (the default), one onboarding_status, or every partner. */
export type QueueFilter = 'pending_review' | OnboardingStatus | 'all';

export const QUEUE_PAGE_SIZE = 20;

/**
 * One page of the queue (GET /admin/partners), in the API's order (registration); `search` is its
 * `q`, text in the business name, legal name or e-mail, over every partner, not just a page.
 */
export const partnersQuery = (filter: QueueFilter, search: string, cursor: string | undefined) =>
  queryOptions({
    queryKey: [...adminKeys.partners, 'list', { filter, search, cursor }],
    queryFn: ({ signal }) =>
      unwrap(
        operatorApi.GET('/baas/api/v1/admin/partners', {
          params: {
            query: {
              limit: QUEUE_PAGE_SIZE,
              ...(cursor ? { cursor } : {}),
              ...(search ? { q: search } : {}),
              ...(filter === 'pending_review' ? { pending_review: true } : {}),
              ...(filter !== 'pending_review' && filter !== 'all' ? { onboarding_status: filter } : {}),
            },
          },
          signal,
        }),
      ),
    placeholderData: keepPreviousData,
    // The queue is where a reviewer starts: always what waits now.
    staleTime: 0,
  });
