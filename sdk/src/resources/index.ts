export { ApiKeys } from './api-keys.js';
export { Events } from './events.js';
export { Onboarding } from './onboarding.js';
export { Team } from './team.js';
export { VirtualAccounts } from './virtual-accounts.js';
export { WebhookDeliveries } from './webhook-deliveries.js';
export { WebhookEndpointResource } from './webhook-endpoint.js';
