import type { Kysely } from 'kysely';
import { operatorActor, type RequestMeta } from '../../platform/audit/audit.repository.js';
import type { AuditedWrite } from '../../platform/audit/audited-write.js';
import type { OperatorCredential } from '../../platform/auth/credentials.js';
import { toIso } from '../../platform/clock.js';
import type { KeyRing } from '../../platform/crypto/keys.js';
import type { Database } from '../../platform/db/schema.js';
import { ENVIRONMENTS } from '../../platform/environment.js';
import { AppError } from '../../platform/errors/errors.js';
import { extend } from '../../platform/objects.js';
import { keysetCursor } from '../../platform/pagination/cursor.js';
import type { FileStorage } from '../../platform/storage/storage.js';
import type { Notifications } from '../notifications/notifications.service.js';
import * as operators from '../operators/operators.repository.js';
import type { OnboardingStatus } from '../partners/partners.schemas.js';
import { openDocumentFile as openStoredDocumentFile } from './document-files.js';
import * as repo from './onboarding.repository.js';
import {
  type OnboardingRecord,
  partnerRecordView,
  partnerSummaryView,
  reviewedDocumentView,
  stateOf,
} from './onboarding.views.js';
import { approvalGaps } from './requirements.js';
import { loadRecord, lockForDecision, moveStatus, type StatusChange } from './transitions.js';

export interface ReviewDeps {
  db: Kysely<Database>;
  write: AuditedWrite;
  keys: KeyRing;
  storage: FileStorage;
  notify: Notifications;
}

/** Reviewers decide documents and request changes; the final and suspending decisions are an admin's. */
function requireAdmin(operator: OperatorCredential, what: string): void {
  if (operator.kind === 'operator' && operator.role !== 'admin') {
    throw new AppError('FORBIDDEN', {
      message: `Only an admin can ${what}; reviewers decide documents and request changes.`,
    });
  }
}

export type ReviewService = ReturnType<typeof createReviewService>;

/** Who works on a partner's review, as operators see it. */
function assignmentView(fields: repo.OperatorFields | undefined) {
  return {
    assigned_to:
      fields?.assigned_operator_id == null
        ? null
        : { id: fields.assigned_operator_id, name: fields.assigned_operator_name ?? '' },
    assigned_at: fields?.assigned_at == null ? null : toIso(Number(fields.assigned_at)),
  };
}

/** An operator's decision on an application or a partner: the reason the partner sees, the note it never does. */
export interface Decision {
  reason: string;
  internalNote: string | null;
}

/**
 * The operator's side of onboarding: the review queue, a partner's full record and documents, and the
 * decisions on documents and applications (docs/operator-guide.md). The partner's side is
 * onboarding.service.ts; both move onboarding_status through transitions.ts.
 */
export function createReviewService({ db, write, keys, storage, notify }: ReviewDeps) {
  /** A decision on a partner in status `change.from`, checked and made under the partner's lock. */
  function decide(
    operator: OperatorCredential,
    partnerId: number,
    meta: RequestMeta,
    change: StatusChange & { from: [OnboardingStatus] },
    check?: (record: OnboardingRecord) => void,
  ) {
    return write({ actor: operatorActor(partnerId, operator), meta }, async (context) => {
      const record = await lockForDecision(context.trx, partnerId);
      const [needed] = change.from;
      if (record.partner.onboarding_status !== needed) {
        throw new AppError('ONBOARDING_LOCKED', {
          message: `This needs onboarding_status ${needed}; it is ${record.partner.onboarding_status}.`,
        });
      }
      check?.(record);
      await moveStatus(context, partnerId, change);
      await notify.onboardingDecided(
        context.trx,
        partnerId,
        { from: needed, to: change.to, reason: change.reviewNotes },
        context.now,
      );
    });
  }

  async function listPartners(filter: {
    onboardingStatus?: OnboardingStatus;
    pendingReview?: boolean;
    /** An operator's id, or null for partners assigned to nobody. */
    assignedTo?: string | null;
    search?: string;
    cursor?: string;
    limit: number;
  }) {
    const search = filter.search?.toLowerCase();
    // A search's cursor pages that search only.
    const scope = search === undefined ? 'operator' : `operator:q=${search}`;
    const cursor = keysetCursor(keys.cursor, 'admin_partners', scope, 'number');
    const afterId = cursor.decode(filter.cursor);
    const rows = await repo.listPartners(db, {
      limit: filter.limit,
      ...(afterId !== undefined ? { afterId } : {}),
      ...(filter.onboardingStatus ? { onboardingStatus: filter.onboardingStatus } : {}),
      ...(filter.pendingReview !== undefined ? { pendingReview: filter.pendingReview } : {}),
      ...(filter.assignedTo !== undefined ? { assignedTo: filter.assignedTo } : {}),
      ...(search !== undefined ? { search } : {}),
    });
    const page = cursor.page(rows, filter.limit, (partner) => partner.id);
    const ids = page.items.map((partner) => partner.id);
    const [pending, fields] = await Promise.all([
      repo.pendingDocuments(db, ids),
      repo.operatorFieldsOf(db, ids),
    ]);
    return {
      next_cursor: page.next_cursor,
      items: page.items.map((partner) =>
        extend(partnerSummaryView(partner, pending.get(partner.id)), assignmentView(fields.get(partner.id))),
      ),
    };
  }

  async function partnerRecord(partnerId: number) {
    const record = await loadRecord(db, partnerId);
    const [allDocuments, checks, fields] = await Promise.all([
      repo.listAllDocuments(db, partnerId),
      repo.listKycChecks(db, partnerId),
      repo.findOperatorFields(db, partnerId),
    ]);
    return extend(partnerRecordView(record, allDocuments, checks), {
      internal_note: fields?.internal_note ?? null,
      ...assignmentView(fields),
    });
  }

  const openDocumentFile = (partnerId: number, documentId: string) =>
    openStoredDocumentFile(db, storage, partnerId, documentId);

  /**
   * Decides the current document of its type while pending review, with its audit and webhook events,
   * under the partner's lock (an approval checks every document under it).
   */
  async function reviewDocument(
    operator: OperatorCredential,
    partnerId: number,
    documentId: string,
    decision: { status: 'approved' | 'rejected'; reason: string | null },
    meta: RequestMeta,
  ) {
    const document = await write(
      { actor: operatorActor(partnerId, operator), meta },
      async ({ trx, now, audit, emit }) => {
        await repo.lockPartner(trx, partnerId);
        const existing = await repo.findDocument(trx, partnerId, documentId);
        if (!existing) throw new AppError('NOT_FOUND');
        const decided = await repo.decideDocument(trx, partnerId, documentId, decision, now);
        if (!decided) {
          throw new AppError('ONBOARDING_LOCKED', {
            message: existing.superseded_at
              ? 'A newer upload replaced this document; review the current one.'
              : `The document was already ${existing.status}.`,
          });
        }
        audit({
          partnerId,
          action: `document.${decision.status}`,
          targetType: 'document',
          targetId: documentId,
          metadata: {
            document_type: decided.document_type,
            ...(decision.reason ? { reason: decision.reason } : {}),
          },
        });
        emit({
          partnerId,
          environments: ENVIRONMENTS,
          type: 'document.reviewed',
          data: {
            id: decided.id,
            document_type: decided.document_type,
            status: decided.status,
            rejection_reason: decided.rejection_reason,
          },
        });
        if (decided.status === 'rejected') {
          await notify.documentRejected(
            trx,
            partnerId,
            { type: decided.document_type, reason: decided.rejection_reason },
            now,
          );
        }
        return decided;
      },
    );
    return reviewedDocumentView(document);
  }

  /**
   * Assigns the partner's review to `wanted` (undefined: the calling operator, a claim; null: nobody)
   * under the partner's lock. A reviewer claims a partner nobody works on, or lets go of its own; an
   * admin (or the admin API key) assigns anyone active, taking it from whoever had it.
   */
  function assign(
    operator: OperatorCredential,
    partnerId: number,
    wanted: string | null | undefined,
    meta: RequestMeta,
  ) {
    const self = operator.kind === 'operator' ? operator.operatorId : undefined;
    const to = wanted === undefined ? self : wanted;
    if (to === undefined) {
      throw new AppError('VALIDATION_FAILED', {
        errors: { operator_id: ['The admin API key is not an operator: name the operator to assign.'] },
      });
    }
    const isAdmin = operator.kind === 'admin_api_key' || operator.role === 'admin';
    if (!isAdmin && to !== null && to !== self) {
      throw new AppError('FORBIDDEN', {
        message:
          'Only an admin can assign a partner to another operator; reviewers claim partners themselves.',
      });
    }
    return write({ actor: operatorActor(partnerId, operator), meta }, async ({ trx, now, audit }) => {
      await repo.lockPartner(trx, partnerId);
      const before = await repo.findOperatorFields(trx, partnerId);
      if (!before) throw new AppError('NOT_FOUND');
      let name: string | null = null;
      if (to !== null) {
        const target = await operators.findOperator(trx, to);
        if (target?.status !== 'active') {
          throw new AppError('VALIDATION_FAILED', {
            errors: { operator_id: ['This names no active operator.'] },
          });
        }
        name = target.name;
      }
      if (!(await repo.assignPartner(trx, partnerId, to, now, isAdmin ? undefined : self))) {
        throw new AppError('ALREADY_ASSIGNED', {
          message: `${before.assigned_operator_name ?? 'Another operator'} is working on this partner; an admin can reassign it.`,
        });
      }
      if (before.assigned_operator_id !== to) {
        audit({
          partnerId,
          action: to === null ? 'partner.unassigned' : 'partner.assigned',
          targetType: 'partner',
          targetId: partnerId,
          metadata: {
            operator_id: to,
            operator_name: name,
            previous_operator_id: before.assigned_operator_id,
            previous_operator_name: before.assigned_operator_name,
          },
        });
      }
      return assignmentView(await repo.findOperatorFields(trx, partnerId));
    });
  }

  return {
    listPartners,
    partnerRecord,
    assign,
    openDocumentFile,
    reviewDocument,

    /** Needs every checklist document approved and the representative's KYC passed. */
    approve: (operator: OperatorCredential, partnerId: number, meta: RequestMeta) => {
      requireAdmin(operator, 'approve a partner');
      return decide(
        operator,
        partnerId,
        meta,
        { from: ['under_review'], to: 'active', reviewNotes: null, internalNote: null },
        (record) => {
          const gaps = approvalGaps(stateOf(record));
          if (Object.keys(gaps).length > 0) throw new AppError('ONBOARDING_INCOMPLETE', { errors: gaps });
        },
      );
    },

    /** Back to the partner (in_progress) with the reason as review_notes. */
    requestChanges: (
      operator: OperatorCredential,
      partnerId: number,
      decision: Decision,
      meta: RequestMeta,
    ) =>
      decide(operator, partnerId, meta, {
        from: ['under_review'],
        to: 'in_progress',
        reviewNotes: decision.reason,
        internalNote: decision.internalNote,
      }),

    /** Final. */
    reject: (operator: OperatorCredential, partnerId: number, decision: Decision, meta: RequestMeta) => {
      requireAdmin(operator, 'reject a partner');
      return decide(operator, partnerId, meta, {
        from: ['under_review'],
        to: 'rejected',
        reviewNotes: decision.reason,
        internalNote: decision.internalNote,
      });
    },

    /**
     * active → suspended, the reason kept as review_notes: live credentials are refused, the sandbox
     * keeps working, live events already queued are still delivered.
     */
    suspend: (operator: OperatorCredential, partnerId: number, decision: Decision, meta: RequestMeta) => {
      requireAdmin(operator, 'suspend a partner');
      return decide(operator, partnerId, meta, {
        from: ['active'],
        to: 'suspended',
        reviewNotes: decision.reason,
        internalNote: decision.internalNote,
      });
    },

    /** suspended → active: the suspension's reason and internal note go with it. */
    reinstate: (operator: OperatorCredential, partnerId: number, meta: RequestMeta) => {
      requireAdmin(operator, 'reinstate a partner');
      return decide(operator, partnerId, meta, {
        from: ['suspended'],
        to: 'active',
        reviewNotes: null,
        internalNote: null,
      });
    },
  };
}
