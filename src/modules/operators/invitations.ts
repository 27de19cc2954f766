import type { Transaction } from 'kysely';
import type { AuditChange } from '../../platform/audit/audited-write.js';
import { toIso } from '../../platform/clock.js';
import { newId, randomToken, sha256 } from '../../platform/crypto/tokens.js';
import type { Database } from '../../platform/db/schema.js';
import { AppError } from '../../platform/errors/errors.js';
import * as repo from './operators.repository.js';
import type { OperatorRole } from './operators.schemas.js';

const INVITATION_MS = 72 * 60 * 60 * 1000;

export interface InvitationInput {
  email: string;
  role: OperatorRole;
  purpose: 'invite' | 'reset_second_factor';
  /** The operator whose second factor is reset. */
  operatorId?: string;
  /** The operator who made it; null for the command line and ADMIN_API_KEY. */
  createdBy: string | null;
  /** More for the audit event (what else the change did). */
  auditMetadata?: Record<string, unknown>;
}

/** The set-up link of a token: the token travels in the fragment, which browsers never send to a server. */
export const setupUrl = (publicUrl: string, token: string): string =>
  `${publicUrl.replace(/\/$/, '')}/console/setup#token=${token}`;

/**
 * Inserts an invitation in the caller's transaction (an open one of the same address or operator is
 * revoked) and audits it; the caller gets the one-time link, the database only its hash.
 */
export async function insertInvitation(
  trx: Transaction<Database>,
  audit: (change: AuditChange) => void,
  publicUrl: string,
  input: InvitationInput,
  now: number,
) {
  const token = randomToken();
  const id = newId();
  const expiresAt = now + INVITATION_MS;
  await repo.revokeOpenInvitations(
    trx,
    input.operatorId ? { operatorId: input.operatorId } : { email: input.email },
    now,
  );
  await repo.insertInvitation(trx, {
    id,
    token_hash: sha256(token),
    purpose: input.purpose,
    email: input.email,
    role: input.role,
    operator_id: input.operatorId ?? null,
    created_by: input.createdBy,
    pending_name: null,
    pending_password_hash: null,
    pending_totp_secret: null,
    expires_at: expiresAt,
    accepted_at: null,
    revoked_at: null,
    created_at: now,
  });
  audit({
    action: input.purpose === 'invite' ? 'operator.invited' : 'operator.second_factor_reset',
    targetType: input.operatorId ? 'operator' : 'operator_invitation',
    targetId: input.operatorId ?? id,
    metadata: { email: input.email, role: input.role, ...input.auditMetadata },
  });
  return {
    id,
    email: input.email,
    role: input.role,
    purpose: input.purpose,
    expires_at: toIso(expiresAt),
    url: setupUrl(publicUrl, token),
  };
}

/** The invitation behind a link, open and not expired, or the answer that says why not. */
export function openInvitation(row: repo.InvitationRow | undefined, now: number): repo.InvitationRow {
  if (!row || row.accepted_at !== null || row.revoked_at !== null) {
    throw new AppError('NOT_FOUND', {
      message: 'This invitation link is not valid: it was used or replaced, or never existed.',
    });
  }
  if (row.expires_at <= now) throw new AppError('INVITATION_EXPIRED');
  return row;
}
