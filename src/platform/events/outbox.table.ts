import type { Environment } from '../environment.js';

/**
 * Events for partners' webhooks, written in the same transaction as the change that caused them.
 * The delivery columns are owned by the webhook worker.
 */
export interface OutboxEventsTable {
  id: string;
  partner_id: number;
  environment: Environment;
  /** An event type of the catalog (catalog.ts). */
  type: string;
  /** JSON: the event's `data`. */
  payload: string;
  created_at: number;
  status: 'pending' | 'delivered' | 'failed' | 'skipped';
  attempts: number;
  next_attempt_at: number;
  /** A worker's claim: only the holder of the lease records the attempt's outcome. */
  locked_until: number | null;
  lease_token: string | null;
  delivered_at: number | null;
  last_error: string | null;
}

export interface OutboxTables {
  outbox_events: OutboxEventsTable;
}
