import { ONBOARDING_EVENTS } from './modules/onboarding/onboarding.events.js';
import { TRANSFER_EVENTS } from './modules/transfers/transfers.events.js';
import { VIRTUAL_ACCOUNT_EVENTS } from './modules/virtual-accounts/virtual-accounts.events.js';
import { WEBHOOK_EVENTS } from './modules/webhooks/webhooks.events.js';
import type { EventCatalog } from './platform/events/catalog.js';

/**
 * Every webhook event type, as the modules declare them (`<module>.events.ts`): the outbox serializes
 * by it and the webhooks module documents and lists it. A new module's events join here.
 */
export const EVENTS = Object.assign(
  {},
  VIRTUAL_ACCOUNT_EVENTS,
  TRANSFER_EVENTS,
  ONBOARDING_EVENTS,
  WEBHOOK_EVENTS,
) satisfies EventCatalog;

export type EventType = keyof typeof EVENTS;
