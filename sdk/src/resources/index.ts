export { ApiKeys } from './api-keys.js';
export { Banks } from './banks.js';
export { Events } from './events.js';
export { Onboarding } from './onboarding.js';
export { Team } from './team.js';
export { Transfers, type WaitForFinalOptions } from './transfers.js';
export { VirtualAccounts } from './virtual-accounts.js';
export { WebhookDeliveries } from './webhook-deliveries.js';
export { WebhookEndpointResource } from './webhook-endpoint.js';
