import type { BadgeTone } from '@/components/ui/badge';
import type { Environment, TransferStatus } from '@/lib/api/operator-types';

export const STATUSES: Record<TransferStatus, { label: string; tone: BadgeTone }> = {
  pending: { label: 'Pending', tone: 'info' },
  processing: { label: 'Processing', tone: 'warning' },
  successful: { label: 'Successful', tone: 'success' },
  failed: { label: 'Failed', tone: 'danger' },
  reversed: { label: 'Reversed', tone: 'neutral' },
};

export const ENVIRONMENTS: Record<Environment, string> = { live: 'Live', sandbox: 'Sandbox' };

/** Still waiting for the bank's final answer. */
export const isOpen = (status: TransferStatus) => status === 'pending' || status === 'processing';
