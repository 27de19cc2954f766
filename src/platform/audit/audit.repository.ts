import type { Insertable, Kysely } from 'kysely';
import type { OperatorCredential, PartnerCredential } from '../auth/credentials.js';
import { newId } from '../crypto/tokens.js';
import { knownValue } from '../db/dialect.js';
import type { Database } from '../db/schema.js';
import type { ActorType, AuditEventsTable } from './audit.table.js';

/** Who asked, from where: attached to every audit event. */
export interface RequestMeta {
  requestId: string;
  ip: string;
}

export interface AuditEntry {
  partnerId: number | null;
  actorType: ActorType;
  actorId?: string | number | null;
  action: string;
  targetType?: string;
  targetId?: string | number;
  /** Non-secret details only: never a password, token, OTP, key or whole BVN. */
  metadata?: Record<string, unknown>;
}

/** Who made a change, and whose partner record it belongs to. */
export type AuditActor = Pick<AuditEntry, 'partnerId' | 'actorType' | 'actorId'>;

/** The audit actor of a partner's credential: the dashboard user of a session, or which API key acted. */
export function actorOf(credential: PartnerCredential): AuditActor {
  return credential.kind === 'api_key'
    ? { partnerId: credential.partnerId, actorType: 'partner', actorId: `api_key:${credential.apiKeyId}` }
    : userActor(credential.partnerId, credential.userId);
}

/** A dashboard user of the partner, named by id (docs/decisions.md, "Dashboard users and roles"). */
export const userActor = (partnerId: number, userId: string): AuditActor => ({
  partnerId,
  actorType: 'user',
  actorId: userId,
});

/** The partner itself (its dashboard session, or before it has one: registration, verification). */
export const partnerActor = (partnerId: number): AuditActor => ({
  partnerId,
  actorType: 'partner',
  actorId: partnerId,
});

/**
 * Who acts in the back office (docs/operator-guide.md, "Who may call it"): a signed-in operator,
 * named by id, or ADMIN_API_KEY, which appears as actor `api_key`; `partnerId` is the partner record
 * it acts on, if any.
 */
export const operatorActor = (partnerId: number | null, operator: OperatorCredential): AuditActor =>
  operator.kind === 'operator'
    ? { partnerId, actorType: 'operator', actorId: operator.operatorId }
    : { partnerId, actorType: 'api_key', actorId: null };

/** The service itself (the webhook worker): its bookkeeping is not audited, but it writes through the same helper. */
export const systemActor: AuditActor = { partnerId: null, actorType: 'system' };

/** Someone not authenticated, acting on `partnerId`'s account or on no known account. */
export const anonymousActor = (partnerId: number | null): AuditActor => ({
  partnerId,
  actorType: 'anonymous',
});

/** The audit event of a change, written in the change's own statement or transaction (audited-write.ts). */
export function auditRow(
  entry: AuditEntry,
  meta: RequestMeta | null,
  now: number,
): Insertable<AuditEventsTable> {
  return {
    id: newId(),
    partner_id: entry.partnerId,
    actor_type: entry.actorType,
    actor_id: entry.actorId === undefined || entry.actorId === null ? null : String(entry.actorId),
    action: entry.action,
    target_type: entry.targetType ?? null,
    target_id: entry.targetId === undefined ? null : String(entry.targetId),
    metadata: entry.metadata ? JSON.stringify(entry.metadata) : null,
    request_id: meta?.requestId ?? null,
    ip: meta?.ip ?? null,
    created_at: now,
  };
}

/** Keyset page of audit events, newest first (ids are time-ordered). */
export interface AuditFilter {
  partnerId?: number;
  /** Any of these partners (a company-name search resolved to ids). */
  partnerIds?: readonly number[];
  action?: string;
  actorType?: ActorType;
  actorId?: string;
  /** Any of these operators as actor (an operator-name search resolved to ids). */
  operatorIds?: readonly string[];
  createdFrom?: number;
  createdTo?: number;
}

/** What every action the code writes looks like (`virtual_account.created`). */
const ACTION_SHAPE = /^[a-z][a-z0-9_.]{0,99}$/;

/**
 * Newest first, each filter off an index ending in id: partner (…_partner_idx), action, actor type and
 * actor (2026-11-29-07); a time window is read along the id order.
 */
export function listAuditEvents(
  db: Kysely<Database>,
  filter: AuditFilter & { beforeId?: string; limit: number },
) {
  let query = db
    .selectFrom('audit_events')
    .selectAll()
    .orderBy('id', 'desc')
    .limit(filter.limit + 1);
  if (filter.partnerId !== undefined) query = query.where('partner_id', '=', filter.partnerId);
  if (filter.action !== undefined) {
    // Inlined as the enums are (knownValue): an action is one of a few dozen, and a rare one must not
    // be planned as 1/n of the trail. Other text, which matches no action, stays a parameter.
    const action = ACTION_SHAPE.test(filter.action) ? knownValue(filter.action) : filter.action;
    query = query.where('action', '=', action);
  }
  if (filter.actorType !== undefined) query = query.where('actor_type', '=', knownValue(filter.actorType));
  if (filter.actorId !== undefined) query = query.where('actor_id', '=', filter.actorId);
  if (filter.partnerIds !== undefined) query = query.where('partner_id', 'in', [...filter.partnerIds]);
  if (filter.operatorIds !== undefined) {
    query = query
      .where('actor_type', '=', knownValue('operator'))
      .where('actor_id', 'in', [...filter.operatorIds]);
  }
  if (filter.createdFrom !== undefined) query = query.where('created_at', '>=', filter.createdFrom);
  if (filter.createdTo !== undefined) query = query.where('created_at', '<=', filter.createdTo);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  return query.execute();
}
