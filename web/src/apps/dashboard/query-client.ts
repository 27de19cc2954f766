import { ApiError } from '@baas/sdk';
import { QueryClient } from '@tanstack/react-query';

/**
 * The dashboard's query client: like the console's, except that an answer the server gave on
 * purpose (4xx: not found, session ended, validation) is not asked again; only failures that may
 * pass (network, 5xx) are retried, once.
 */
export function createDashboardQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        refetchOnWindowFocus: false,
        retry: (failures, error) => failures < 1 && !(error instanceof ApiError && error.status < 500),
      },
    },
  });
}
