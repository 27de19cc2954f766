export const ACTOR_TYPES = ['partner', 'user', 'operator', 'api_key', 'system', 'anonymous'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

export interface AuditEventsTable {
  id: string;
  partner_id: number | null;
  actor_type: ActorType;
  actor_id: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  /** JSON object with non-secret details. */
  metadata: string | null;
  request_id: string | null;
  ip: string | null;
  created_at: number;
}

export interface AuditTables {
  audit_events: AuditEventsTable;
}
