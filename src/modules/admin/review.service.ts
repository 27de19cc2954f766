import { operatorActor, type RequestMeta } from '../../platform/audit/audit.repository.js';
import type { AuditedWrite } from '../../platform/audit/audited-write.js';
import type { OperatorCredential } from '../../platform/auth/credentials.js';
import { AppError } from '../../platform/errors/errors.js';
import type { OnboardingService, StatusChange } from '../onboarding/onboarding.service.js';
import { reviewedDocumentView, stateOf } from '../onboarding/onboarding.views.js';
import { approvalGaps } from '../onboarding/requirements.js';
import type { OnboardingStatus } from '../partners/partners.schemas.js';

/** CONTRACT 5: reviewers decide documents and request changes; the final and suspending decisions are an admin's. */
function requireAdmin(operator: OperatorCredential, what: string): void {
  if (operator.kind === 'operator' && operator.role !== 'admin') {
    throw new AppError('FORBIDDEN', {
      message: `Only an admin can ${what}; reviewers decide documents and request changes.`,
    });
  }
}

export type ReviewService = ReturnType<typeof createReviewService>;

/**
 * The operator's decisions on applications and documents (CONTRACT 5). The rules live here; the
 * state changes, their audit and webhook events are the onboarding module's.
 */
export function createReviewService({
  write,
  onboarding,
}: {
  write: AuditedWrite;
  onboarding: OnboardingService;
}) {
  /** A decision on a partner in status `change.from`, checked and made under the partner's lock. */
  function decide(
    operator: OperatorCredential,
    partnerId: number,
    meta: RequestMeta,
    change: StatusChange & { from: [OnboardingStatus] },
    check?: (record: Awaited<ReturnType<OnboardingService['lockForDecision']>>) => void,
  ) {
    return write({ actor: operatorActor(partnerId, operator), meta }, async (context) => {
      const record = await onboarding.lockForDecision(context.trx, partnerId);
      const [needed] = change.from;
      if (record.partner.onboarding_status !== needed) {
        throw new AppError('ONBOARDING_LOCKED', {
          message: `This needs onboarding_status ${needed}; it is ${record.partner.onboarding_status}.`,
        });
      }
      check?.(record);
      await onboarding.moveStatus(context, partnerId, change);
    });
  }

  return {
    listPartners: onboarding.listPartners,
    partnerRecord: onboarding.partnerRecord,
    openDocumentFile: onboarding.openDocumentFile,

    async reviewDocument(
      operator: OperatorCredential,
      partnerId: number,
      documentId: string,
      decision: { status: 'approved' | 'rejected'; reason: string | null },
      meta: RequestMeta,
    ) {
      const document = await onboarding.decideDocument(
        operatorActor(partnerId, operator),
        meta,
        partnerId,
        documentId,
        decision,
      );
      return reviewedDocumentView(document);
    },

    /** Needs every checklist document approved and the representative's KYC passed. */
    approve: (operator: OperatorCredential, partnerId: number, meta: RequestMeta) => {
      requireAdmin(operator, 'approve a partner');
      return decide(
        operator,
        partnerId,
        meta,
        { from: ['under_review'], to: 'active', reviewNotes: null },
        (record) => {
          const gaps = approvalGaps(stateOf(record));
          if (Object.keys(gaps).length > 0) throw new AppError('ONBOARDING_INCOMPLETE', { errors: gaps });
        },
      );
    },

    /** Back to the partner (in_progress) with the reason as review_notes. */
    requestChanges: (operator: OperatorCredential, partnerId: number, reason: string, meta: RequestMeta) =>
      decide(operator, partnerId, meta, { from: ['under_review'], to: 'in_progress', reviewNotes: reason }),

    /** Final. */
    reject: (operator: OperatorCredential, partnerId: number, reason: string, meta: RequestMeta) => {
      requireAdmin(operator, 'reject a partner');
      return decide(operator, partnerId, meta, {
        from: ['under_review'],
        to: 'rejected',
        reviewNotes: reason,
      });
    },

    /**
     * active → suspended, the reason kept as review_notes: live credentials are refused, the sandbox
     * keeps working, live events already queued are still delivered.
     */
    suspend: (operator: OperatorCredential, partnerId: number, reason: string, meta: RequestMeta) => {
      requireAdmin(operator, 'suspend a partner');
      return decide(operator, partnerId, meta, { from: ['active'], to: 'suspended', reviewNotes: reason });
    },

    /** suspended → active. */
    reinstate: (operator: OperatorCredential, partnerId: number, meta: RequestMeta) => {
      requireAdmin(operator, 'reinstate a partner');
      return decide(operator, partnerId, meta, { from: ['suspended'], to: 'active', reviewNotes: null });
    },
  };
}
