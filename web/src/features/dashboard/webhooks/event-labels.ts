import type { BadgeTone } from '@/components/ui/badge';
import type { EventType, PartnerEvent } from '@/lib/api/partner-types';
import { formatNaira } from '@/lib/money';
import { documentTypeLabel, humanize, ONBOARDING_STATUS_LABELS } from '@/lib/onboarding-labels';

export type DeliveryStatus = PartnerEvent['delivery']['status'];

export const EVENT_TYPE_OPTIONS: Array<{ id: EventType; label: string }> = [
  { id: 'virtual_account.created', label: 'Account created' },
  { id: 'virtual_account.credited', label: 'Account credited' },
  { id: 'virtual_account.status_changed', label: 'Account status changed' },
  { id: 'transfer.successful', label: 'Transfer successful' },
  { id: 'transfer.failed', label: 'Transfer failed' },
  { id: 'transfer.reversed', label: 'Transfer reversed' },
  { id: 'onboarding.status_changed', label: 'Onboarding status changed' },
  { id: 'document.reviewed', label: 'Document reviewed' },
  { id: 'webhook.test', label: 'Test event' },
];

export const eventTypeLabel = (type: string) =>
  EVENT_TYPE_OPTIONS.find((option) => option.id === type)?.label ?? humanize(type);

export const DELIVERY_STATUS_OPTIONS: Array<{ id: DeliveryStatus; label: string; tone: BadgeTone }> = [
  { id: 'failed', label: 'Failed', tone: 'danger' },
  { id: 'pending', label: 'Pending', tone: 'info' },
  { id: 'delivered', label: 'Delivered', tone: 'success' },
  { id: 'skipped', label: 'Skipped: no endpoint', tone: 'neutral' },
];

export const deliveryStatusBadge = (status: DeliveryStatus) =>
  DELIVERY_STATUS_OPTIONS.find((option) => option.id === status)!;

/** The attempt's generic error (docs/decisions.md, "Webhooks") as an operator of the receiver reads it. */
export function deliveryError(error: string | null): string {
  if (!error) return 'error';
  const status = /^http_(\d{3})$/.exec(error)?.[1];
  if (status) return `HTTP ${status}`;
  const labels: Record<string, string> = {
    timeout: 'timed out',
    connection_failed: 'connection failed',
    destination_not_allowed: 'address not allowed',
  };
  return labels[error] ?? error;
}

/** One line on what the event says: the account and amount of a credit, the new status… */
export function eventSummary(event: PartnerEvent): string {
  switch (event.type) {
    case 'virtual_account.created':
      return `${event.data.account_number} · ${event.data.customer.first_name} ${event.data.customer.last_name}`;
    case 'virtual_account.credited':
      return `${event.data.account.account_number} · ${formatNaira(event.data.transaction.amount_kobo)}`;
    case 'virtual_account.status_changed':
      return `${event.data.account_number} · ${humanize(event.data.status)}`;
    case 'onboarding.status_changed':
      return ONBOARDING_STATUS_LABELS[event.data.onboarding_status];
    case 'document.reviewed':
      return `${documentTypeLabel(event.data.document_type)} · ${humanize(event.data.status)}`;
    case 'transfer.successful':
    case 'transfer.failed':
    case 'transfer.reversed':
      return `${event.data.reference} · ${formatNaira(event.data.amount_kobo)}`;
    case 'webhook.test':
      return 'Sent from this dashboard or the API';
    default:
      return '';
  }
}
