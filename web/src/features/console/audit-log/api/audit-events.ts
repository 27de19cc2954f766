import { infiniteQueryOptions, keepPreviousData, queryOptions } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { operatorApi } from '@/lib/api/operator-api';
import type { ActorType } from '@/lib/api/operator-types';
import { adminKeys } from '@/lib/operator-query-keys';

export interface AuditFilters {
  company_id?: number;
  action?: string;
  actor_type?: ActorType;
  actor_id?: string;
}

export const AUDIT_PAGE_SIZE = 25;

const listAuditEvents = (
  filters: AuditFilters,
  cursor: string | undefined,
  limit: number,
  signal: AbortSignal,
) =>
  unwrap(
    operatorApi.GET('/baas/api/v1/admin/audit-events', {
      params: { query: { limit, ...filters, ...(cursor ? { cursor } : {}) } },
      signal,
    }),
  );

/** One page of the audit log (GET /admin/audit-events), newest first. */
export const auditEventsQuery = (filters: AuditFilters, cursor: string | undefined) =>
  queryOptions({
    queryKey: [...adminKeys.auditEvents, 'page', filters, cursor],
    queryFn: ({ signal }) => listAuditEvents(filters, cursor, AUDIT_PAGE_SIZE, signal),
    placeholderData: keepPreviousData,
    staleTime: 5_000,
  });

/** A partner's history, newest first, older events loaded on demand. */
export const auditTrailQuery = (companyId: number) =>
  infiniteQueryOptions({
    queryKey: [...adminKeys.auditEvents, 'trail', companyId],
    queryFn: ({ signal, pageParam }) => listAuditEvents({ company_id: companyId }, pageParam, 15, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_cursor ?? undefined,
    staleTime: 0,
  });
