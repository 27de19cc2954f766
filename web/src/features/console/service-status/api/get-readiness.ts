import { queryOptions, useQuery } from '@tanstack/react-query';
import { operatorApi } from '@/lib/api/operator-api';

export type Readiness = 'ready' | 'unavailable';

export const readinessQuery = queryOptions({
  queryKey: ['readiness'],
  queryFn: async ({ signal }): Promise<Readiness> => {
    const { data } = await operatorApi.GET('/readyz', { signal });
    return data?.data.status === 'ready' ? 'ready' : 'unavailable';
  },
  refetchInterval: 60_000,
});

export const useReadiness = () => useQuery(readinessQuery);
