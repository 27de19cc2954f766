import { queryOptions } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { operatorApi } from '@/lib/api/operator-api';
import type { Environment } from '@/lib/api/operator-types';
import { adminKeys } from '@/lib/operator-query-keys';

/** One UTC day's money of one environment (GET /admin/reports/daily). */
export const dailyReportQuery = (date: string, environment: Environment) =>
  queryOptions({
    queryKey: [...adminKeys.dailyReports, date, environment],
    queryFn: ({ signal }) =>
      unwrap(
        operatorApi.GET('/baas/api/v1/admin/reports/daily', {
          params: { query: { date, environment } },
          signal,
        }),
      ),
    // Today's figures move with every credit and transfer; a past day's only as transfers settle.
    staleTime: 0,
  });
