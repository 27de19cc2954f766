import { defineEvents } from '../../platform/events/catalog.js';
import { Credit, VirtualAccount } from './virtual-accounts.schemas.js';

/** The webhook events of virtual accounts: the `data` each carries, and what it means. */
export const VIRTUAL_ACCOUNT_EVENTS = defineEvents({
  'virtual_account.created': {
    payload: VirtualAccount,
    description: 'A virtual account was issued (data: the account).',
  },
  'virtual_account.credited': {
    payload: Credit,
    description: 'Money arrived on a virtual account (data: the credit and the account after it).',
  },
  'virtual_account.status_changed': {
    payload: VirtualAccount,
    description:
      'A virtual account was deactivated, reactivated or closed (data: the account, with status_reason).',
  },
});

export type VirtualAccountEventType = keyof typeof VIRTUAL_ACCOUNT_EVENTS;
