import { Badge, type BadgeTone } from '@/components/ui/badge';
import type { VirtualAccountStatus } from '@/lib/api/partner-types';

const BADGES: Record<VirtualAccountStatus, { tone: BadgeTone; label: string }> = {
  active: { tone: 'success', label: 'Active' },
  inactive: { tone: 'warning', label: 'Inactive' },
  closed: { tone: 'neutral', label: 'Closed' },
};

export const ACCOUNT_STATUS_OPTIONS = [
  { id: 'active', label: 'Active' },
  { id: 'inactive', label: 'Inactive' },
  { id: 'closed', label: 'Closed' },
];

export function AccountStatusBadge({ status }: { status: VirtualAccountStatus }) {
  return <Badge tone={BADGES[status].tone}>{BADGES[status].label}</Badge>;
}
