import type { EventType, PartnerEvent } from '@/lib/api/partner-types';
import { formatNaira } from '@/lib/money';
import { documentTypeLabel, humanize, ONBOARDING_STATUS_LABELS } from '@/lib/onboarding-labels';

export const EVENT_TYPE_OPTIONS: Array<{ id: EventType; label: string }> = [
  { id: 'virtual_account.created', label: 'Account created' },
  { id: 'virtual_account.credited', label: 'Account credited' },
  { id: 'virtual_account.status_changed', label: 'Account status changed' },
  { id: 'onboarding.status_changed', label: 'Onboarding status changed' },
  { id: 'document.reviewed', label: 'Document reviewed' },
];

export const eventTypeLabel = (type: string) =>
  EVENT_TYPE_OPTIONS.find((option) => option.id === type)?.label ?? humanize(type);

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
    default:
      return '';
  }
}
