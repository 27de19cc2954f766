import { keepPreviousData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { partnerApi } from '@/lib/api/partner-api';
import { downloadPartnerFile, listQuery } from '@/lib/api/partner-download';
import type { CreateTransferBody, Transfer, TransferStatus } from '@/lib/api/partner-types';
import { partnerKeys } from '@/lib/partner-query-keys';

const TRANSFERS = '/baas/api/v1/services/transfers';

/** States a transfer leaves no more (a successful one may still be reversed later, by the bank). */
export const FINAL_STATUSES: ReadonlySet<TransferStatus> = new Set(['successful', 'failed', 'reversed']);

/** How often a transfer still on its way is read again. */
const POLL_MS = 1000;

export const banksQuery = () =>
  queryOptions({
    queryKey: partnerKeys.banks,
    queryFn: ({ signal }) => unwrap(partnerApi.GET('/baas/api/v1/services/banks', { signal })),
    // The list changes with a release, not during a visit.
    staleTime: Number.POSITIVE_INFINITY,
  });

export interface TransferFilters {
  status?: TransferStatus;
  source_account_number?: string;
  reference?: string;
  /** YYYY-MM-DD, inclusive, whole days in UTC. */
  created_from?: string;
  created_to?: string;
}

export const transfersQuery = (filters: TransferFilters, cursor: string | undefined) =>
  queryOptions({
    queryKey: [...partnerKeys.transfers, 'list', { ...filters, cursor }],
    queryFn: ({ signal }) =>
      unwrap(
        partnerApi.GET(TRANSFERS, {
          params: { query: { limit: 20, ...filters, ...(cursor ? { cursor } : {}) } },
          signal,
        }),
      ),
    placeholderData: keepPreviousData,
  });

/** Every transfer the filters select (not one page), newest first, saved as a CSV file. */
export function useExportTransfers() {
  return useMutation({
    mutationFn: ({ filters, fileName }: { filters: TransferFilters; fileName: string }) =>
      downloadPartnerFile(`${TRANSFERS}${listQuery(filters)}`, 'text/csv', fileName),
  });
}

/** One transfer, read again every second until it reaches a final status. */
export const transferQuery = (id: string) =>
  queryOptions({
    queryKey: [...partnerKeys.transfers, 'detail', id],
    queryFn: ({ signal }) =>
      unwrap(partnerApi.GET(`${TRANSFERS}/{id}`, { params: { path: { id } }, signal })),
    refetchInterval: (query) => {
      const status = query.state.data?.status;
      return status && FINAL_STATUSES.has(status) ? false : POLL_MS;
    },
  });

export interface BeneficiaryQuestion {
  bank_code: string;
  account_number: string;
}

/** Name enquiry: whose account it is, as the beneficiary bank says. */
export function useNameEnquiry() {
  return useMutation({
    mutationFn: (body: BeneficiaryQuestion) => unwrap(partnerApi.POST(`${TRANSFERS}/name-enquiry`, { body })),
  });
}

/**
 * Sends a transfer. The Idempotency-Key (`attempt`) is made once per review, so a double press or a
 * retry after a lost answer cannot send the money twice.
 */
export function useCreateTransfer() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ body, attempt }: { body: CreateTransferBody; attempt: string }) =>
      unwrap(partnerApi.POST(TRANSFERS, { body, params: { header: { 'idempotency-key': attempt } } })),
    onSuccess: (transfer) => noteTransfer(queryClient, transfer),
  });
}

/** A transfer just read: its detail is known, and balances and lists have moved. */
export async function noteTransfer(
  queryClient: ReturnType<typeof useQueryClient>,
  transfer: Transfer,
): Promise<void> {
  queryClient.setQueryData(transferQuery(transfer.id).queryKey, transfer);
  await queryClient.invalidateQueries({ queryKey: [...partnerKeys.transfers, 'list'] });
  await queryClient.invalidateQueries({ queryKey: partnerKeys.accounts });
}
