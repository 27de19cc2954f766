import { defineEvents } from '../../platform/events/catalog.js';
import { Transfer } from './transfers.schemas.js';

/** The webhook events of transfers (money out): each carries the transfer. */
export const TRANSFER_EVENTS = defineEvents({
  'transfer.successful': {
    payload: Transfer,
    description:
      'A transfer reached the beneficiary: its amount and fee are debited (data: the transfer, with session_id).',
  },
  'transfer.failed': {
    payload: Transfer,
    description:
      "A transfer failed on the bank's definite answer: nothing was debited, the hold is released (data: the transfer, with failure_reason).",
  },
  'transfer.reversed': {
    payload: Transfer,
    description:
      'The bank returned a successful transfer: its amount is credited back, the fee is kept (data: the transfer).',
  },
});

export type TransferEventType = keyof typeof TRANSFER_EVENTS;
