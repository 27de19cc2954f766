import type { Kysely } from 'kysely';
import { operatorActor, type RequestMeta } from '../../platform/audit/audit.repository.js';
import type { AuditedWrite } from '../../platform/audit/audited-write.js';
import type { OperatorCredential } from '../../platform/auth/credentials.js';
import type { KeyRing } from '../../platform/crypto/keys.js';
import type { Database } from '../../platform/db/schema.js';
import { ENVIRONMENTS } from '../../platform/environment.js';
import { AppError } from '../../platform/errors/errors.js';
import { extend } from '../../platform/objects.js';
import { keysetCursor } from '../../platform/pagination/cursor.js';
import type { FileStorage } from '../../platform/storage/storage.js';
import type { OnboardingStatus } from '../partners/partners.schemas.js';
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
}

/** Reviewers decide documents and request changes; the final and suspending decisions are an admin's. */
function requireAdmin(operator: OperatorCredential, what: string): void {
  if (operator.kind === 'operator' && operator.role !== 'admin') {
    throw new AppError('FORBIDDEN', {
      message: `Only an admin can ${what}; reviewers decide documents and request changes.`,
    });
  }
}

const fileDeleted = () =>
  new AppError('NOT_FOUND', {
    message:
      'A newer upload of its type replaced this document before any operator decided it, so its file was deleted; the record stays for the audit trail.',
  });

export type ReviewService = ReturnType<typeof createReviewService>;

/**
 * The operator's side of onboarding: the review queue, a partner's full record and documents, and the
 * decisions on documents and applications (docs/operator-guide.md). The partner's side is
 * onboarding.service.ts; both move onboarding_status through transitions.ts.
 */
export function createReviewService({ db, write, keys, storage }: ReviewDeps) {
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
    });
  }

  async function listPartners(filter: {
    onboardingStatus?: OnboardingStatus;
    pendingReview?: boolean;
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
      ...(search !== undefined ? { search } : {}),
    });
    const page = cursor.page(rows, filter.limit, (partner) => partner.id);
    const pending = await repo.pendingDocuments(
      db,
      page.items.map((partner) => partner.id),
    );
    return {
      next_cursor: page.next_cursor,
      items: page.items.map((partner) => partnerSummaryView(partner, pending.get(partner.id))),
    };
  }

  async function partnerRecord(partnerId: number) {
    const record = await loadRecord(db, partnerId);
    const [allDocuments, checks] = await Promise.all([
      repo.listAllDocuments(db, partnerId),
      repo.listKycChecks(db, partnerId),
    ]);
    return partnerRecordView(record, allDocuments, checks);
  }

  async function openDocumentFile(partnerId: number, documentId: string) {
    const document = await repo.findDocument(db, partnerId, documentId);
    if (!document) throw new AppError('NOT_FOUND');
    if (document.file_deleted_at !== null) throw fileDeleted();
    if (!document.storage_key) {
      throw new AppError('NOT_FOUND', {
        message: 'This document was provided as a URL (see file_url); no file is stored.',
      });
    }
    try {
      const file = await storage.open(document.storage_key);
      return extend(file, { contentType: document.content_type ?? 'application/octet-stream', document });
    } catch (error) {
      // An upload that superseded it since the read above deleted the file.
      if ((error as { code?: unknown }).code === 'ENOENT') {
        const now = await repo.findDocument(db, partnerId, documentId);
        if (now?.file_deleted_at != null) throw fileDeleted();
      }
      throw error;
    }
  }

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
        return decided;
      },
    );
    return reviewedDocumentView(document);
  }

  return {
    listPartners,
    partnerRecord,
    openDocumentFile,
    reviewDocument,

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
