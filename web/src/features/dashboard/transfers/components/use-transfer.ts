import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { partnerKeys } from '@/lib/partner-query-keys';
import { FINAL_STATUSES, transferQuery } from '../api/transfers';

/**
 * A transfer, followed every second until it reaches a final status; then the balances and lists it
 * moved are read again.
 */
export function useTransfer(id: string) {
  const queryClient = useQueryClient();
  const transfer = useQuery(transferQuery(id));
  const status = transfer.data?.status;
  useEffect(() => {
    if (!status || !FINAL_STATUSES.has(status)) return;
    void queryClient.invalidateQueries({ queryKey: partnerKeys.accounts });
    void queryClient.invalidateQueries({ queryKey: [...partnerKeys.transfers, 'list'] });
  }, [status, queryClient]);
  return transfer;
}
