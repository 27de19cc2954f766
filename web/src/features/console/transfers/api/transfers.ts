import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { operatorApi } from '@/lib/api/operator-api';
import type { Environment, TransferStatus } from '@/lib/api/operator-types';
import { adminKeys } from '@/lib/operator-query-keys';

export interface TransferFilters {
  status?: TransferStatus;
  environment?: Environment;
  company_id?: number;
}

export const TRANSFERS_PAGE_SIZE = 25;
/** The attention list reads this many of each kind; more than that is a day for the bank's desk. */
export const ATTENTION_LIMIT = 100;

const listTransfers = (
  query: TransferFilters & { stuck?: boolean; cursor?: string; limit: number },
  signal: AbortSignal,
) => unwrap(operatorApi.GET('/baas/api/v1/admin/transfers', { params: { query }, signal }));

/** One page of every partner's transfers (GET /admin/transfers), newest first. */
export const transfersQuery = (filters: TransferFilters, cursor: string | undefined) =>
  queryOptions({
    queryKey: [...adminKeys.transfers, 'page', filters, cursor],
    queryFn: ({ signal }) =>
      listTransfers({ ...filters, limit: TRANSFERS_PAGE_SIZE, ...(cursor ? { cursor } : {}) }, signal),
    placeholderData: keepPreviousData,
    // Transfers move on their own (the bank answers, the server asks again): never trust an old page.
    staleTime: 0,
  });

/**
 * What an operator should look at: transfers the bank still owes an answer 10 minutes after they
 * were accepted (`stuck`), or every one handed to the bank and not answered yet (`processing`),
 * within the page's environment and partner.
 */
export const attentionQuery = (kind: 'stuck' | 'processing', filters: Omit<TransferFilters, 'status'>) =>
  queryOptions({
    queryKey: [...adminKeys.transfers, 'attention', kind, filters],
    queryFn: ({ signal }) =>
      listTransfers(
        {
          ...filters,
          ...(kind === 'stuck' ? { stuck: true } : { status: 'processing' as const }),
          limit: ATTENTION_LIMIT,
        },
        signal,
      ),
    staleTime: 0,
  });

/** The partners to filter by: the first hundred, by name. */
export const partnerChoicesQuery = () =>
  queryOptions({
    queryKey: [...adminKeys.partners, 'choices'],
    queryFn: async ({ signal }) => {
      const page = await unwrap(
        operatorApi.GET('/baas/api/v1/admin/partners', { params: { query: { limit: 100 } }, signal }),
      );
      return page.items
        .map((partner) => ({ companyId: partner.company_id, name: partner.business_name }))
        .sort((a, b) => a.name.localeCompare(b.name));
    },
    staleTime: 60_000,
  });
