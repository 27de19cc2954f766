/**
 * Roots of the console's query keys. Everything an operator's session may read lives under
 * `admin`, so signing out or an ended session drops it in one call; features invalidate what their
 * changes affect by these roots.
 */
export const adminKeys = {
  all: ['admin'] as const,
  partners: ['admin', 'partners'] as const,
  /** Uploaded files' bytes: a document id's file never changes, so decisions leave them be. */
  documentFiles: ['admin', 'document-files'] as const,
  auditEvents: ['admin', 'audit-events'] as const,
  creditNotifications: ['admin', 'credit-notifications'] as const,
  transfers: ['admin', 'transfers'] as const,
  dailyReports: ['admin', 'daily-reports'] as const,
  operators: ['admin', 'operators'] as const,
  invitations: ['admin', 'invitations'] as const,
};

/** The signed-in operator (GET /admin/session), or null when there is no session. */
export const operatorSessionKey = ['operator-session'] as const;
