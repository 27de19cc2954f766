import { ApiError } from '@baas/sdk';
import { keepPreviousData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { partnerApi } from '@/lib/api/partner-api';
import { downloadPartnerFile, listQuery } from '@/lib/api/partner-download';
import type {
  Credit,
  SimulateCreditBody,
  VirtualAccount,
  VirtualAccountStatus,
} from '@/lib/api/partner-types';
import { partnerKeys } from '@/lib/partner-query-keys';

const ACCOUNTS = '/baas/api/v1/services/virtual-account';

export interface AccountFilters {
  status?: VirtualAccountStatus;
  email?: string;
  /** YYYY-MM-DD, inclusive, whole days in UTC. */
  created_from?: string;
  created_to?: string;
  /** A prefix of the account number, the customer's e-mail, full name or last name. */
  q?: string;
  /** By creation: newest first (desc, the default) or oldest first. */
  order?: 'asc' | 'desc';
}

export const PAGE_SIZES = [20, 50, 100] as const;
export type PageSize = (typeof PAGE_SIZES)[number];

export const accountsQuery = (filters: AccountFilters, limit: PageSize, cursor: string | undefined) =>
  queryOptions({
    queryKey: [...partnerKeys.accounts, 'list', { ...filters, limit, cursor }],
    queryFn: ({ signal }) =>
      unwrap(
        partnerApi.GET(ACCOUNTS, {
          params: { query: { limit, ...filters, ...(cursor ? { cursor } : {}) } },
          signal,
        }),
      ),
    placeholderData: keepPreviousData,
  });

/** Every account the filters, search and order select (not one page), saved as a CSV file. */
export function useExportAccounts() {
  return useMutation({
    mutationFn: ({ filters, fileName }: { filters: AccountFilters; fileName: string }) =>
      downloadPartnerFile(`${ACCOUNTS}${listQuery(filters)}`, 'text/csv', fileName),
  });
}

export const accountQuery = (accountNumber: string) =>
  queryOptions({
    queryKey: [...partnerKeys.accounts, 'detail', accountNumber],
    queryFn: ({ signal }) =>
      unwrap(
        partnerApi.GET(`${ACCOUNTS}/{account_number}`, {
          params: { path: { account_number: accountNumber } },
          signal,
        }),
      ),
  });

export const transactionsQuery = (accountNumber: string, cursor: string | undefined) =>
  queryOptions({
    queryKey: [...partnerKeys.accounts, 'transactions', accountNumber, { cursor }],
    queryFn: ({ signal }) =>
      unwrap(
        partnerApi.GET(`${ACCOUNTS}/{account_number}/transactions`, {
          params: {
            path: { account_number: accountNumber },
            query: { limit: 20, ...(cursor ? { cursor } : {}) },
          },
          signal,
        }),
      ),
  });

/** 409 VIRTUAL_ACCOUNT_EXISTS: the customer's e-mail already has an account here, which comes with it. */
export function existingAccount(error: unknown): VirtualAccount | null {
  return error instanceof ApiError && error.errorCode === 'VIRTUAL_ACCOUNT_EXISTS' && error.data
    ? (error.data as VirtualAccount)
    : null;
}

export interface NewAccount {
  first_name: string;
  last_name: string;
  email: string;
  phone: string;
  bvn?: string;
}

/**
 * Issues an account. The Idempotency-Key is made once per form (the caller's `attempt`), so a
 * retried click after a lost answer cannot issue a second account.
 */
export function useCreateAccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ body, attempt }: { body: NewAccount; attempt: string }) =>
      unwrap(
        partnerApi.POST(`${ACCOUNTS}/create`, { body, params: { header: { 'idempotency-key': attempt } } }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: partnerKeys.accounts }),
  });
}

/** A simulated credit; `alreadyCredited` when its session ID had been credited before (200, not 201). */
export type SimulatedCredit = Credit & { alreadyCredited: boolean };

/** Sandbox only: credits the account as if a transfer had arrived. */
export function useSimulateCredit(accountNumber: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ body, attempt }: { body: SimulateCreditBody; attempt: string }) => {
      const request = partnerApi.POST(`${ACCOUNTS}/{account_number}/simulate-credit`, {
        params: { path: { account_number: accountNumber }, header: { 'idempotency-key': attempt } },
        body,
      });
      const credit = await unwrap(request);
      const { response } = await request;
      return { ...credit, alreadyCredited: response.status === 200 } satisfies SimulatedCredit;
    },
    onSuccess: async (credit) => {
      queryClient.setQueryData(accountQuery(accountNumber).queryKey, credit.account);
      await queryClient.invalidateQueries({ queryKey: partnerKeys.accounts });
      await queryClient.invalidateQueries({ queryKey: partnerKeys.events });
    },
  });
}

export type StatusAction = 'deactivate' | 'reactivate' | 'close';

export function useChangeAccountStatus(accountNumber: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ action, reason }: { action: StatusAction; reason: string }) => {
      const params = { path: { account_number: accountNumber } };
      if (action === 'reactivate') {
        return unwrap(partnerApi.POST(`${ACCOUNTS}/{account_number}/reactivate`, { params }));
      }
      if (action === 'close') {
        return unwrap(partnerApi.POST(`${ACCOUNTS}/{account_number}/close`, { params, body: { reason } }));
      }
      return unwrap(partnerApi.POST(`${ACCOUNTS}/{account_number}/deactivate`, { params, body: { reason } }));
    },
    onSuccess: async (account) => {
      queryClient.setQueryData(accountQuery(accountNumber).queryKey, account);
      await queryClient.invalidateQueries({ queryKey: partnerKeys.accounts });
    },
  });
}

/** The statement of a period as CSV (`Accept: text/csv`), saved as a file. */
export function useDownloadStatement(accountNumber: string) {
  return useMutation({
    mutationFn: ({ from, to }: { from: string; to: string }) =>
      downloadPartnerFile(
        `${ACCOUNTS}/${encodeURIComponent(accountNumber)}/statement${listQuery({ from, to })}`,
        'text/csv',
        `statement-${accountNumber}-${from}-to-${to}.csv`,
      ),
  });
}
