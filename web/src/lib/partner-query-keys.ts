/**
 * Roots of the dashboard's query keys. Everything a partner's session may read lives under
 * `partner`, so signing out, an ended session or a switch of environment drops it in one call.
 */
export const partnerKeys = {
  all: ['partner'] as const,
  profile: ['partner', 'profile'] as const,
  apiKeys: ['partner', 'api-keys'] as const,
  team: ['partner', 'team'] as const,
  users: ['partner', 'users'] as const,
  invitations: ['partner', 'invitations'] as const,
  notifications: ['partner', 'notifications'] as const,
  secondFactor: ['partner', 'second-factor'] as const,
  security: ['partner', 'security'] as const,
  accounts: ['partner', 'virtual-accounts'] as const,
  webhook: ['partner', 'webhook'] as const,
  deliveries: ['partner', 'webhook-deliveries'] as const,
  events: ['partner', 'events'] as const,
  banks: ['partner', 'banks'] as const,
  transfers: ['partner', 'transfers'] as const,
};

/** The signed-in partner (GET /client/onboarding/session), or none. */
export const partnerSessionKey = ['partner-session'] as const;
