import { type RawBuilder, sql } from 'kysely';
import { isNotNullViolation } from '../db/errors.js';
import type { PartnerCredential } from './credentials.js';

/**
 * The partner_id a write stores for a credential. For an API key taken from the keys verified in the
 * last minute (ApiKeyCredential.cached) it is a sub-select that yields the partner only while the key
 * may act: not revoked, and a live key's partner active (the conditions of the lookup in
 * api-keys.service). The row's NOT NULL partner_id then refuses, in the write's own statement, a key
 * revoked or a partner suspended since: a revocation holds at once on every instance, and the write
 * needs no lookup before it (one round trip on PostgreSQL instead of two).
 */
export function partnerIdOf(credential: PartnerCredential): number | RawBuilder<number> {
  if (credential.kind !== 'api_key' || !credential.cached) return credential.partnerId;
  return sql<number>`(select k.partner_id from api_keys k join partners p on p.id = k.partner_id
    where k.id = ${credential.apiKeyId} and k.revoked_at is null
    and (k.environment = 'sandbox' or p.onboarding_status = 'active'))`;
}

/** The write refused the credential (see partnerIdOf). */
export const isKeyCheckFailure = (error: unknown): boolean => isNotNullViolation(error, 'partner_id');
