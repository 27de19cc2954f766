/**
 * Events for partners' webhooks, written in the same transaction as the change that caused them.
 * The delivery columns are owned by the webhook worker.
 */
export interface OutboxEventsTable {
  id: string;
  partner_id: number;
  environment: string;
  type: string;
  /** JSON: the event's `data`. */
  payload: string;
  created_at: number;
  status: string;
  attempts: number;
  next_attempt_at: number;
  locked_until: number | null;
  delivered_at: number | null;
  last_error: string | null;
}

export interface OutboxTables {
  outbox_events: OutboxEventsTable;
}
