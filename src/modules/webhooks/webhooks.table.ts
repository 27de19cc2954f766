import type { ColumnType } from 'kysely';
import type { Environment } from '../../platform/environment.js';

export interface WebhookEndpointsTable {
  partner_id: number;
  environment: Environment;
  url: string;
  /** Encrypted, not hashed: the service needs the secret to sign. */
  secret_encrypted: string;
  /** After a rotation the old secret keeps signing (beside the new one) until it expires. */
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: number | null;
  /** When automatic deliveries to it started failing, none succeeding since; null while they succeed. */
  failing_since: number | null;
  /** When the partner was e-mailed that it had been failing for an hour, in the current failing episode. */
  failure_notified_at: number | null;
  /** The worker instance sending this endpoint's events (its lane), and until when; null when none. */
  lane_token: string | null;
  lane_until: number | null;
  /** When a worker last took the lane: lanes go least recently served first (0: never). */
  lane_served_at: ColumnType<number, number | undefined, number>;
  created_at: number;
  updated_at: number;
}

/** The delivery log: one row per HTTP attempt. */
export interface WebhookAttemptsTable {
  id: string;
  event_id: string;
  partner_id: number;
  environment: Environment;
  attempt: number;
  trigger: 'automatic' | 'manual';
  url: string;
  /** 1 when the receiver answered 2xx. */
  succeeded: number;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  /** The start of the receiver's answer as text (delivery.ts bodyExcerpt); null when none came. */
  response_body_excerpt: string | null;
  /**
   * Set while the request is (or may be) on its way: the attempt is written before it is sent and
   * completed after, when this goes back to null. Past it, with no outcome, the outcome is unknown.
   */
  in_flight_until: number | null;
  created_at: number;
}
