import { ApiError } from '@baas/sdk';
import { infiniteQueryOptions, keepPreviousData, queryOptions, useMutation } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { operatorApi } from '@/lib/api/operator-api';
import type { ActorType } from '@/lib/api/operator-types';
import { saveBlob } from '@/lib/download';
import { adminKeys } from '@/lib/operator-query-keys';

/** The filters of GET /admin/audit-events the console uses; they combine. */
export interface AuditFilters {
  /** Text in the partner's business name or e-mail. */
  company?: string;
  /** Text in the acting operator's name or e-mail. */
  operator?: string;
  /** YYYY-MM-DD: from that day's start, UTC. */
  created_from?: string;
  /** YYYY-MM-DD: to that day's end, UTC (the API reads a date alone as the whole day). */
  created_to?: string;
  action?: string;
  actor_type?: ActorType;
  /** One partner (the partner page's "Open in the audit log"). */
  company_id?: number;
  /** One actor (an operator's id, or `bank_connector`), as the operator guide links it. */
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

export const AUDIT_CSV_FILE = 'audit-events.csv';

/**
 * Every event the filters match (all pages) as CSV (`Accept: text/csv`), saved as a file. Read
 * through the console's client, so the session's cookie goes with it and an ended session is
 * noticed as on any other request; an error answer is the API's JSON envelope.
 */
export function useExportAuditEvents() {
  return useMutation({
    mutationFn: async (filters: AuditFilters) => {
      const { data, error, response } = await operatorApi.GET('/baas/api/v1/admin/audit-events', {
        params: { query: filters },
        headers: { Accept: 'text/csv' },
        parseAs: 'blob',
      });
      if (!response.ok || data === undefined) throw ApiError.from(response, error);
      saveBlob(data, AUDIT_CSV_FILE);
      return AUDIT_CSV_FILE;
    },
  });
}
