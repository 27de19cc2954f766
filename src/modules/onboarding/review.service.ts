import type { Kysely } from 'kysely';
import { operatorActor, type RequestMeta } from '../../platform/audit/audit.repository.js';
import type { AuditedWrite, WriteContext } from '../../platform/audit/audited-write.js';
import type { OperatorCredential } from '../../platform/auth/credentials.js';
import { toIso } from '../../platform/clock.js';
import type { KeyRing } from '../../platform/crypto/keys.js';
import { newId } from '../../platform/crypto/tokens.js';
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
import type { ProposalAction, ProposalStatus } from './onboarding.table.js';
import {
  type OnboardingRecord,
  partnerRecordView,
  partnerSummaryView,
  reviewedDocumentView,
  stateOf,
} from './onboarding.views.js';
import * as proposals from './proposals.repository.js';
import { approvalGaps } from './requirements.js';
import { loadRecord, lockForDecision, moveStatus, type StatusChange } from './transitions.js';

export interface ReviewDeps {
  db: Kysely<Database>;
  write: AuditedWrite;
  keys: KeyRing;
  storage: FileStorage;
  notify: Notifications;
  /** Approve, suspend and reinstate are proposed by one admin and confirmed by another (REQUIRE_FOUR_EYES). */
  fourEyes: boolean;
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

const NO_DECISION: Decision = { reason: '', internalNote: null };

/** What each decision under four eyes changes, and what it checks beyond the status it starts from. */
function gatedChange(
  action: ProposalAction,
  decision: Decision,
): { change: StatusChange & { from: [OnboardingStatus] }; check?: (record: OnboardingRecord) => void } {
  switch (action) {
    case 'approve':
      return {
        change: { from: ['under_review'], to: 'active', reviewNotes: null, internalNote: null },
        check: (record) => {
          const gaps = approvalGaps(stateOf(record));
          if (Object.keys(gaps).length > 0) throw new AppError('ONBOARDING_INCOMPLETE', { errors: gaps });
        },
      };
    case 'suspend':
      return {
        change: {
          from: ['active'],
          to: 'suspended',
          reviewNotes: decision.reason,
          internalNote: decision.internalNote,
        },
      };
    case 'reinstate':
      return { change: { from: ['suspended'], to: 'active', reviewNotes: null, internalNote: null } };
  }
}

const ACTION_WORDS: Record<ProposalAction, string> = {
  approve: 'approve a partner',
  suspend: 'suspend a partner',
  reinstate: 'reinstate a partner',
};

/** Who proposed or settled a proposal, as the audit trail names them. */
const proposerOf = (operator: OperatorCredential) =>
  operator.kind === 'operator'
    ? { type: 'operator' as const, id: operator.operatorId }
    : { type: 'api_key' as const, id: null };

/**
 * The second pair of eyes is a person with the admin role: a reviewer may not decide, and
 * ADMIN_API_KEY is not a person (whoever holds it could confirm their own proposal).
 */
function secondAdmin(operator: OperatorCredential, what: 'confirm' | 'decline') {
  if (operator.kind !== 'operator') {
    throw new AppError('FORBIDDEN', {
      message: `The admin API key cannot ${what} a proposal: it is not a person. Another admin ${what}s it in the console.`,
    });
  }
  requireAdmin(operator, `${what} a proposal`);
  return operator;
}

/** A proposal as operators see it (docs/operator-guide.md, "Four eyes"). */
export function proposalView(row: proposals.ProposalRow) {
  return {
    id: row.id,
    action: row.action,
    company_id: row.partner_id,
    business_name: row.business_name,
    status: row.status,
    reason: row.reason,
    internal_note: row.internal_note,
    proposed_by: { type: row.proposed_by_type, id: row.proposed_by_id, name: row.proposed_by_name },
    created_at: toIso(Number(row.created_at)),
    settled_by:
      row.settled_by_type === null
        ? null
        : { type: row.settled_by_type, id: row.settled_by_id, name: row.settled_by_name },
    settled_at: row.settled_at === null ? null : toIso(Number(row.settled_at)),
    decline_reason: row.decline_reason,
  };
}
export type ProposalView = ReturnType<typeof proposalView>;

/**
 * The operator's side of onboarding: the review queue, a partner's full record and documents, and the
 * decisions on documents and applications (docs/operator-guide.md). The partner's side is
 * onboarding.service.ts; both move onboarding_status through transitions.ts.
 */
export function createReviewService({ db, write, keys, storage, notify, fourEyes }: ReviewDeps) {
  function requireStatus(record: OnboardingRecord, needed: OnboardingStatus): void {
    if (record.partner.onboarding_status !== needed) {
      throw new AppError('ONBOARDING_LOCKED', {
        message: `This needs onboarding_status ${needed}; it is ${record.partner.onboarding_status}.`,
      });
    }
  }

  /**
   * A decision on a partner in status `change.from`, checked and made under the partner's lock.
   * `settle` (a confirmed proposal) runs first under the lock, in the same transaction: a refused
   * decision leaves the proposal as it was.
   */
  function decide(
    operator: OperatorCredential,
    partnerId: number,
    meta: RequestMeta,
    change: StatusChange & { from: [OnboardingStatus] },
    check?: (record: OnboardingRecord) => void,
    settle?: (context: WriteContext) => Promise<void>,
  ) {
    return write({ actor: operatorActor(partnerId, operator), meta }, async (context) => {
      const record = await lockForDecision(context.trx, partnerId);
      await settle?.(context);
      const [needed] = change.from;
      requireStatus(record, needed);
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
    const [pending, fields, proposed] = await Promise.all([
      repo.pendingDocuments(db, ids),
      repo.operatorFieldsOf(db, ids),
      proposals.pendingProposalsOf(db, ids),
    ]);
    return {
      next_cursor: page.next_cursor,
      items: page.items.map((partner) => {
        const proposal = proposed.get(partner.id);
        const assignment = assignmentView(fields.get(partner.id));
        return extend(partnerSummaryView(partner, pending.get(partner.id)), {
          assigned_to: assignment.assigned_to,
          assigned_at: assignment.assigned_at,
          pending_proposal: proposal ? proposalView(proposal) : null,
        });
      }),
    };
  }

  async function partnerRecord(partnerId: number) {
    const record = await loadRecord(db, partnerId);
    const [allDocuments, checks, fields, pending] = await Promise.all([
      repo.listAllDocuments(db, partnerId),
      repo.listKycChecks(db, partnerId),
      repo.findOperatorFields(db, partnerId),
      proposals.pendingProposalsOf(db, [partnerId]),
    ]);
    const proposal = pending.get(partnerId);
    return extend(partnerRecordView(record, allDocuments, checks), {
      internal_note: fields?.internal_note ?? null,
      ...assignmentView(fields),
      pending_proposal: proposal ? proposalView(proposal) : null,
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

  /** An admin's decision gated by four eyes: made at once (null) or proposed (the proposal). */
  async function act(
    operator: OperatorCredential,
    partnerId: number,
    action: ProposalAction,
    decision: Decision,
    meta: RequestMeta,
  ): Promise<ProposalView | null> {
    requireAdmin(operator, ACTION_WORDS[action]);
    const { change, check } = gatedChange(action, decision);
    if (!fourEyes) {
      await decide(operator, partnerId, meta, change, check);
      return null;
    }
    const by = proposerOf(operator);
    const id = await write(
      {
        actor: operatorActor(partnerId, operator),
        meta,
        // The partial unique index allows one pending proposal per partner and action.
        onUniqueViolation: async () => {
          const pending = await proposals.findPendingProposal(db, partnerId, action);
          const who = pending?.proposed_by_name ?? 'the admin API key';
          return new AppError('PROPOSAL_PENDING', {
            message: `${who} already proposed to ${action} this partner; another admin confirms or declines it.`,
          });
        },
      },
      async ({ trx, now, audit }) => {
        // Checked now so that a proposal never waits for a decision that could not be made.
        const record = await lockForDecision(trx, partnerId);
        requireStatus(record, change.from[0]);
        check?.(record);
        const proposalId = newId();
        await proposals.insertProposal(trx, {
          id: proposalId,
          partner_id: partnerId,
          action,
          reason: change.reviewNotes,
          internal_note: change.internalNote ?? null,
          status: 'pending',
          proposed_by_type: by.type,
          proposed_by_id: by.id,
          settled_by_type: null,
          settled_by_id: null,
          settled_at: null,
          decline_reason: null,
          created_at: now,
        });
        audit({
          partnerId,
          action: 'proposal.created',
          targetType: 'proposal',
          targetId: proposalId,
          metadata: {
            action,
            ...(change.reviewNotes ? { reason: change.reviewNotes } : {}),
            ...(change.internalNote ? { internal_note: change.internalNote } : {}),
          },
        });
        await notify.proposalPending(
          trx,
          {
            partnerId,
            action,
            proposedBy: {
              operatorId: operator.kind === 'operator' ? operator.operatorId : null,
              name: operator.kind === 'operator' ? operator.name : 'The admin API key',
            },
            reason: change.reviewNotes,
          },
          now,
        );
        return proposalId;
      },
    );
    return proposal(id);
  }

  async function proposal(id: string): Promise<ProposalView> {
    const row = await proposals.findProposal(db, id);
    if (!row) throw new AppError('NOT_FOUND');
    return proposalView(row);
  }

  async function listProposals(filter: {
    status?: ProposalStatus;
    partnerId?: number;
    cursor?: string;
    limit: number;
  }) {
    const scope = `status=${filter.status ?? ''}:company=${filter.partnerId ?? ''}`;
    const cursor = keysetCursor(keys.cursor, 'admin_proposals', scope, 'string');
    const beforeId = cursor.decode(filter.cursor);
    const rows = await proposals.listProposals(db, {
      limit: filter.limit,
      ...(filter.status !== undefined ? { status: filter.status } : {}),
      ...(filter.partnerId !== undefined ? { partnerId: filter.partnerId } : {}),
      ...(beforeId !== undefined ? { beforeId } : {}),
    });
    const page = cursor.page(rows, filter.limit, (row) => row.id);
    return { next_cursor: page.next_cursor, items: page.items.map(proposalView) };
  }

  /** 409 naming what became of a proposal that is no longer pending. */
  async function settledError(trx: Kysely<Database>, id: string): Promise<AppError> {
    const row = await proposals.findProposal(trx, id);
    const by = row?.settled_by_name ? ` by ${row.settled_by_name}` : '';
    return new AppError('PROPOSAL_SETTLED', {
      message: row
        ? row.status === 'void'
          ? "This proposal is void: the partner's status changed since it was made."
          : `This proposal is no longer pending: it was ${row.status}${by}.`
        : undefined,
    });
  }

  /** A pending proposal of another admin's, settled by a person with the admin role. */
  async function othersProposal(operator: OperatorCredential, id: string, what: 'confirm' | 'decline') {
    const person = secondAdmin(operator, what);
    const row = await proposals.findProposal(db, id);
    if (!row) throw new AppError('NOT_FOUND');
    if (row.proposed_by_type === 'operator' && row.proposed_by_id === person.operatorId) {
      throw new AppError('FORBIDDEN', {
        message:
          what === 'confirm'
            ? 'You proposed this decision: another admin must confirm it (four eyes).'
            : 'You proposed this decision: withdraw it instead; declining is for another admin.',
      });
    }
    return { person, row };
  }

  /**
   * Makes the proposed decision through the same path as the direct one (its checks, audit, webhook
   * and e-mail), the proposal settled as confirmed in its transaction: of racing confirmations,
   * declines and withdrawals exactly one wins.
   */
  async function confirm(operator: OperatorCredential, id: string, meta: RequestMeta) {
    const { person, row } = await othersProposal(operator, id, 'confirm');
    const { change, check } = gatedChange(row.action, {
      reason: row.reason ?? '',
      internalNote: row.internal_note,
    });
    await decide(operator, row.partner_id, meta, change, check, async ({ trx, now, audit }) => {
      const settled = await proposals.settleProposal(trx, id, {
        status: 'confirmed',
        byType: 'operator',
        byId: person.operatorId,
        now,
      });
      if (!settled) throw await settledError(trx, id);
      audit({
        partnerId: row.partner_id,
        action: 'proposal.confirmed',
        targetType: 'proposal',
        targetId: id,
        metadata: {
          action: row.action,
          proposed_by_type: row.proposed_by_type,
          proposed_by_id: row.proposed_by_id,
        },
      });
    });
    return proposal(id);
  }

  async function decline(operator: OperatorCredential, id: string, reason: string | null, meta: RequestMeta) {
    const { person, row } = await othersProposal(operator, id, 'decline');
    await write({ actor: operatorActor(row.partner_id, operator), meta }, async ({ trx, now, audit }) => {
      const settled = await proposals.settleProposal(trx, id, {
        status: 'declined',
        byType: 'operator',
        byId: person.operatorId,
        declineReason: reason,
        now,
      });
      if (!settled) throw await settledError(trx, id);
      audit({
        partnerId: row.partner_id,
        action: 'proposal.declined',
        targetType: 'proposal',
        targetId: id,
        metadata: { action: row.action, ...(reason ? { reason } : {}) },
      });
    });
    return proposal(id);
  }

  /** Its proposer's only (an operator, or ADMIN_API_KEY for the proposals made with it). */
  async function withdraw(operator: OperatorCredential, id: string, meta: RequestMeta) {
    const row = await proposals.findProposal(db, id);
    if (!row) throw new AppError('NOT_FOUND');
    const by = proposerOf(operator);
    if (row.proposed_by_type !== by.type || row.proposed_by_id !== by.id) {
      throw new AppError('FORBIDDEN', {
        message: 'Only its proposer can withdraw a proposal; other admins confirm or decline it.',
      });
    }
    await write({ actor: operatorActor(row.partner_id, operator), meta }, async ({ trx, now, audit }) => {
      const settled = await proposals.settleProposal(
        trx,
        id,
        { status: 'withdrawn', byType: by.type, byId: by.id, now },
        by,
      );
      if (!settled) throw await settledError(trx, id);
      audit({
        partnerId: row.partner_id,
        action: 'proposal.withdrawn',
        targetType: 'proposal',
        targetId: id,
        metadata: { action: row.action },
      });
    });
    return proposal(id);
  }

  return {
    listPartners,
    partnerRecord,
    assign,
    openDocumentFile,
    reviewDocument,

    /**
     * Needs every checklist document approved and the representative's KYC passed. Under four eyes
     * answers the proposal instead (null: done at once), as suspend and reinstate do.
     */
    approve: (operator: OperatorCredential, partnerId: number, meta: RequestMeta) =>
      act(operator, partnerId, 'approve', NO_DECISION, meta),

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
    suspend: (operator: OperatorCredential, partnerId: number, decision: Decision, meta: RequestMeta) =>
      act(operator, partnerId, 'suspend', decision, meta),

    /** suspended → active: the suspension's reason and internal note go with it. */
    reinstate: (operator: OperatorCredential, partnerId: number, meta: RequestMeta) =>
      act(operator, partnerId, 'reinstate', NO_DECISION, meta),

    listProposals,
    proposal,
    confirm,
    decline,
    withdraw,
  };
}
