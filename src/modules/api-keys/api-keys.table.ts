import type { Environment } from '../../platform/environment.js';

export interface ApiKeysTable {
  id: string;
  partner_id: number;
  name: string;
  environment: Environment;
  /** The first characters of the secret part, stored in clear to find the row. */
  lookup_prefix: string;
  /** SHA-256 of the whole key: the key itself is never stored. */
  key_hash: string;
  last4: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  /** The dashboard user who created it (null for keys made before dashboard users). */
  created_by_user_id: string | null;
}
