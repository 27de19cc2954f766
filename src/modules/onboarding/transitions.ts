import type { Kysely, Transaction } from 'kysely';
import type { WriteContext } from '../../platform/audit/audited-write.js';
import type { Database } from '../../platform/db/schema.js';
import { ENVIRONMENTS } from '../../platform/environment.js';
import { AppError } from '../../platform/errors/errors.js';
import type { OnboardingStatus } from '../partners/partners.schemas.js';
import * as repo from './onboarding.repository.js';
import type { OnboardingRecord } from './onboarding.views.js';
import { voidPendingProposals } from './proposals.repository.js';

/** A change of onboarding_status: allowed only from one of `from`. */
export interface StatusChange {
  from: readonly OnboardingStatus[];
  to: OnboardingStatus;
  reviewNotes: string | null;
  /**
   * An operator's note for operators only: kept on the partner (internal_note) and in the audit
   * event, never in the partner's views, e-mails or webhooks. Undefined leaves the stored note as it
   * is (a partner's own moves); an operator's decision sets it, null clearing it.
   */
  internalNote?: string | null;
}

/** A partner's onboarding record; 404 for an unknown partner. */
export async function loadRecord(db: Kysely<Database>, partnerId: number): Promise<OnboardingRecord> {
  const record = await repo.findOnboardingRecord(db, partnerId);
  if (!record) throw new AppError('NOT_FOUND');
  return record;
}

/**
 * Takes the partner's row lock and reads its onboarding under it: what a decision checks (status,
 * requirements, documents) cannot change before the decision commits, because every partner write
 * and every document decision takes the same lock.
 */
export async function lockForDecision(
  trx: Transaction<Database>,
  partnerId: number,
): Promise<OnboardingRecord> {
  await repo.lockPartner(trx, partnerId);
  return loadRecord(trx, partnerId);
}

/**
 * Moves onboarding_status inside a write, with its audit and webhook events. Call after
 * `lockForDecision` when the move depends on what was checked (requirements, documents). A proposal
 * still pending for the partner was made for the status it leaves: it becomes void (four eyes).
 */
export async function moveStatus(
  { trx, now, audit, emit }: WriteContext,
  partnerId: number,
  change: StatusChange,
): Promise<void> {
  if (!(await repo.transitionOnboardingStatus(trx, partnerId, change, now))) {
    throw new AppError('ONBOARDING_LOCKED', {
      message: `This needs onboarding_status ${change.from.join(' or ')}.`,
    });
  }
  audit({
    partnerId,
    action: 'onboarding.status_changed',
    targetType: 'partner',
    targetId: partnerId,
    metadata: {
      from: change.from,
      to: change.to,
      ...(change.reviewNotes ? { reason: change.reviewNotes } : {}),
      ...(change.internalNote ? { internal_note: change.internalNote } : {}),
    },
  });
  for (const proposalId of await voidPendingProposals(trx, partnerId, now)) {
    audit({
      partnerId,
      action: 'proposal.voided',
      targetType: 'proposal',
      targetId: proposalId,
      metadata: { to: change.to },
    });
  }
  emit({
    partnerId,
    environments: ENVIRONMENTS,
    type: 'onboarding.status_changed',
    data: { company_id: partnerId, onboarding_status: change.to, review_notes: change.reviewNotes },
  });
}
