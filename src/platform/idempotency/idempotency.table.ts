import type { Environment } from '../environment.js';

export interface IdempotencyKeysTable {
  partner_id: number;
  environment: Environment;
  key: string;
  request_hash: string;
  /** in_progress | completed */
  status: string;
  response_status: number | null;
  /** The first response, encrypted (it may hold a freshly issued API key or personal data). */
  response_body: string | null;
  created_at: number;
  expires_at: number;
}
