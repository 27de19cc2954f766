import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditService } from '../../platform/audit/audit.service.js';
import { AppError } from '../../platform/errors/errors.js';
import { operatorOf, requestMeta } from '../../platform/http/auth.js';
import { csvDocument, wantsCsv } from '../../platform/http/csv.js';
import { FileResponse, fileHeaders, sendFile } from '../../platform/http/file-download.js';
import { operation } from '../../platform/http/route.js';
import { success } from '../../platform/http/schemas.js';
import { createdRange } from '../../platform/time-range.js';
import type { Decision, ProposalView, ReviewService } from '../onboarding/review.service.js';
import {
  AssignmentBody,
  AssignmentResponse,
  AuditEventsResponse,
  AuditQuery,
  DecisionBody,
  DeclineBody,
  DocumentParams,
  PartnerListQuery,
  PartnerListResponse,
  PartnerParams,
  PartnerRecordResponse,
  ProposalAccepted,
  ProposalListQuery,
  ProposalListResponse,
  ProposalParams,
  ProposalResponse,
  ReasonBody,
  ReviewedDocumentResponse,
} from './admin.schemas.js';

const tags = ['Back office'];

/** The operator an `assigned_to` filter names: `me` is the caller (an operator, not the admin API key). */
function assigneeOf(request: FastifyRequest, filter: string): string | null {
  if (filter === 'none') return null;
  if (filter !== 'me') return filter.toLowerCase();
  const operator = operatorOf(request);
  if (operator.kind !== 'operator') {
    throw new AppError('VALIDATION_FAILED', {
      errors: { assigned_to: ['`me` needs an operator session; the admin API key is not an operator.'] },
    });
  }
  return operator.operatorId;
}

const decisionOf = (body: DecisionBody): Decision => ({
  reason: body.reason,
  internalNote: body.internal_note ?? null,
});

const FOUR_EYES =
  ' With REQUIRE_FOUR_EYES=true (the default in production) nothing changes yet: the answer is 202 with a ' +
  'pending proposal that another admin confirms (POST /admin/proposals/{proposal_id}/confirm); 409 ' +
  'PROPOSAL_PENDING while the same decision is already proposed for the partner. The status (and for an ' +
  'approval the checklist) is checked when proposing and again when confirming.';

const PROPOSED: Record<ProposalView['action'], string> = {
  approve: 'Approval proposed: another admin must confirm it.',
  suspend: 'Suspension proposed: another admin must confirm it.',
  reinstate: 'Reinstatement proposed: another admin must confirm it.',
};

/** 202 with the proposal (four eyes), else the partner's record after the decision. */
async function decided(
  reply: FastifyReply,
  review: ReviewService,
  companyId: number,
  proposal: ProposalView | null,
  done: string,
) {
  if (proposal) return reply.code(202).send(success(PROPOSED[proposal.action], proposal));
  return reply.send(success(done, await review.partnerRecord(companyId)));
}

const DOCUMENT_DECISION =
  'Only the current document of its type, while pending_review (else 409 ONBOARDING_LOCKED).';

/**
 * The operator's back office, behind ADMIN_API_KEY. Registered only when the key is configured,
 * so without it every /admin path is an unknown route (404).
 */
export const adminRoutes: FastifyPluginAsyncTypebox<{ review: ReviewService; audit: AuditService }> = async (
  app,
  { review, audit },
) => {
  app.get(
    '/admin/partners',
    operation({
      operationId: 'listPartners',
      summary: 'Review queue: partners, oldest first, optionally by onboarding_status',
      description:
        '`pending_review=true` lists the partners awaiting a decision: applications under review, and ' +
        'approved partners with changes made afterwards (a new document, a representative with new ' +
        'identity data and its ID) that stay `active` until the operator decides the documents. Each item ' +
        'names what awaits review in `pending_review`. `q` searches the business name, legal name and e-mail.',
      tags,
      auth: 'admin',
      querystring: PartnerListQuery,
      response: { 200: PartnerListResponse },
    }),
    async (request) => {
      const { limit, cursor, onboarding_status, pending_review, assigned_to, q } = request.query;
      const data = await review.listPartners({
        limit,
        ...(assigned_to !== undefined ? { assignedTo: assigneeOf(request, assigned_to) } : {}),
        ...(cursor !== undefined ? { cursor } : {}),
        ...(onboarding_status ? { onboardingStatus: onboarding_status } : {}),
        ...(pending_review !== undefined ? { pendingReview: pending_review } : {}),
        ...(q !== undefined ? { search: q } : {}),
      });
      return success('Partners.', data);
    },
  );

  app.get(
    '/admin/partners/:company_id',
    operation({
      operationId: 'getPartnerRecord',
      summary: 'Full partner record: representative with KYC result (BVN masked), every document, KYC checks',
      description:
        'Everything a reviewer needs to decide: profile, representative with the last KYC result (BVN masked), every document upload with its review state (superseded ones too), every KYC check, the checklist and requirements. Unknown ids are 404.',
      tags,
      auth: 'admin',
      params: PartnerParams,
      response: { 200: PartnerRecordResponse },
    }),
    async (request) => success('Partner record.', await review.partnerRecord(request.params.company_id)),
  );

  app.post(
    '/admin/partners/:company_id/documents/:document_id/approve',
    operation({
      operationId: 'approveDocument',
      summary: 'Approve a document pending review',
      description: DOCUMENT_DECISION,
      tags,
      auth: 'admin',
      params: DocumentParams,
      response: { 200: ReviewedDocumentResponse },
      errors: ['ONBOARDING_LOCKED'],
    }),
    async (request) => {
      const { company_id, document_id } = request.params;
      const data = await review.reviewDocument(
        operatorOf(request),
        company_id,
        document_id,
        { status: 'approved', reason: null },
        requestMeta(request),
      );
      return success('Document approved.', data);
    },
  );

  app.post(
    '/admin/partners/:company_id/documents/:document_id/reject',
    operation({
      operationId: 'rejectDocument',
      summary: 'Reject a document pending review, with a reason',
      description: DOCUMENT_DECISION,
      tags,
      auth: 'admin',
      params: DocumentParams,
      body: ReasonBody,
      response: { 200: ReviewedDocumentResponse },
      errors: ['ONBOARDING_LOCKED'],
    }),
    async (request) => {
      const { company_id, document_id } = request.params;
      const data = await review.reviewDocument(
        operatorOf(request),
        company_id,
        document_id,
        { status: 'rejected', reason: request.body.reason },
        requestMeta(request),
      );
      return success('Document rejected.', data);
    },
  );

  app.post(
    '/admin/partners/:company_id/approve',
    operation({
      operationId: 'approvePartner',
      summary: 'Approve an application under review (partner becomes active)',
      description:
        'Needs under_review (else 409 ONBOARDING_LOCKED), the representative KYC passed and every checklist ' +
        'document approved (else 409 ONBOARDING_INCOMPLETE naming each gap).' +
        FOUR_EYES,
      tags,
      auth: 'admin',
      params: PartnerParams,
      response: { 200: PartnerRecordResponse, 202: ProposalAccepted },
      errors: ['ONBOARDING_INCOMPLETE', 'ONBOARDING_LOCKED', 'PROPOSAL_PENDING'],
    }),
    async (request, reply) => {
      const { company_id } = request.params;
      const proposal = await review.approve(operatorOf(request), company_id, requestMeta(request));
      return decided(reply, review, company_id, proposal, 'Partner approved.');
    },
  );

  app.post(
    '/admin/partners/:company_id/request-changes',
    operation({
      operationId: 'requestPartnerChanges',
      summary: 'Send an application under review back to the partner (in_progress, with review_notes)',
      description:
        "Needs under_review (else 409 ONBOARDING_LOCKED). The reason becomes the partner's review_notes (internal_note stays with operators); the partner can change and resubmit. Sends onboarding.status_changed.",
      tags,
      auth: 'admin',
      params: PartnerParams,
      body: DecisionBody,
      response: { 200: PartnerRecordResponse },
      errors: ['ONBOARDING_LOCKED'],
    }),
    async (request) => {
      await review.requestChanges(
        operatorOf(request),
        request.params.company_id,
        decisionOf(request.body),
        requestMeta(request),
      );
      return success('Changes requested.', await review.partnerRecord(request.params.company_id));
    },
  );

  app.post(
    '/admin/partners/:company_id/reject',
    operation({
      operationId: 'rejectPartner',
      summary: 'Reject an application under review (final)',
      description:
        'Needs under_review (else 409 ONBOARDING_LOCKED). Final: the partner cannot resubmit. The reason becomes review_notes; internal_note stays with operators. Sends onboarding.status_changed.',
      tags,
      auth: 'admin',
      params: PartnerParams,
      body: DecisionBody,
      response: { 200: PartnerRecordResponse },
      errors: ['ONBOARDING_LOCKED'],
    }),
    async (request) => {
      await review.reject(
        operatorOf(request),
        request.params.company_id,
        decisionOf(request.body),
        requestMeta(request),
      );
      return success('Application rejected.', await review.partnerRecord(request.params.company_id));
    },
  );

  app.post(
    '/admin/partners/:company_id/suspend',
    operation({
      operationId: 'suspendPartner',
      summary: 'Suspend an approved partner (active → suspended)',
      description:
        'Every live credential of the partner (live sessions, live API keys) then gets 403 PARTNER_SUSPENDED; ' +
        'the sandbox keeps working and live events already queued are still delivered. The reason is kept as ' +
        'review_notes and sent in the onboarding.status_changed event; internal_note stays with operators (no tipping-off). Needs active (else 409 ONBOARDING_LOCKED).' +
        FOUR_EYES,
      tags,
      auth: 'admin',
      params: PartnerParams,
      body: DecisionBody,
      response: { 200: PartnerRecordResponse, 202: ProposalAccepted },
      errors: ['ONBOARDING_LOCKED', 'PROPOSAL_PENDING'],
    }),
    async (request, reply) => {
      const { company_id } = request.params;
      const proposal = await review.suspend(
        operatorOf(request),
        company_id,
        decisionOf(request.body),
        requestMeta(request),
      );
      return decided(reply, review, company_id, proposal, 'Partner suspended.');
    },
  );

  app.post(
    '/admin/partners/:company_id/reinstate',
    operation({
      operationId: 'reinstatePartner',
      summary: 'Reinstate a suspended partner (suspended → active)',
      description: `Needs suspended (else 409 ONBOARDING_LOCKED).${FOUR_EYES}`,
      tags,
      auth: 'admin',
      params: PartnerParams,
      response: { 200: PartnerRecordResponse, 202: ProposalAccepted },
      errors: ['ONBOARDING_LOCKED', 'PROPOSAL_PENDING'],
    }),
    async (request, reply) => {
      const { company_id } = request.params;
      const proposal = await review.reinstate(operatorOf(request), company_id, requestMeta(request));
      return decided(reply, review, company_id, proposal, 'Partner reinstated.');
    },
  );

  app.get(
    '/admin/proposals',
    operation({
      operationId: 'listProposals',
      summary: 'Four eyes: decisions proposed by one admin, newest first',
      description:
        'With REQUIRE_FOUR_EYES=true, approve, suspend and reinstate are proposed by one admin and made when ' +
        'another confirms. `status=pending` lists what awaits a second admin; `company_id` one partner.',
      tags,
      auth: 'admin',
      querystring: ProposalListQuery,
      response: { 200: ProposalListResponse },
    }),
    async (request) => {
      const { limit, cursor, status, company_id } = request.query;
      const data = await review.listProposals({
        limit,
        ...(cursor !== undefined ? { cursor } : {}),
        ...(status !== undefined ? { status } : {}),
        ...(company_id !== undefined ? { partnerId: company_id } : {}),
      });
      return success('Proposals.', data);
    },
  );

  app.get(
    '/admin/proposals/:proposal_id',
    operation({
      operationId: 'getProposal',
      summary: 'Four eyes: one proposal',
      description:
        'Who proposed what, and what became of it (who settled it, when, a decline reason). Unknown ids are 404.',
      tags,
      auth: 'admin',
      params: ProposalParams,
      response: { 200: ProposalResponse },
    }),
    async (request) => success('Proposal.', await review.proposal(request.params.proposal_id)),
  );

  app.post(
    '/admin/proposals/:proposal_id/confirm',
    operation({
      operationId: 'confirmProposal',
      summary: "Four eyes: confirm another admin's proposal (the decision is made)",
      description:
        'An admin other than the proposer (its own: 403 FORBIDDEN; a reviewer or the admin API key, which is ' +
        'not a person: 403 FORBIDDEN) makes the proposed decision, with the same checks, audit events, webhook ' +
        'and e-mail as the direct one. Refused by those checks (409 ONBOARDING_LOCKED, ONBOARDING_INCOMPLETE) ' +
        'the proposal stays pending. No longer pending (confirmed, declined, withdrawn, or void because the ' +
        "partner's status changed): 409 PROPOSAL_SETTLED; of racing confirmations exactly one succeeds.",
      tags,
      auth: 'admin',
      params: ProposalParams,
      response: { 200: ProposalResponse },
      errors: ['ONBOARDING_INCOMPLETE', 'ONBOARDING_LOCKED', 'PROPOSAL_SETTLED'],
    }),
    async (request) =>
      success(
        'Proposal confirmed.',
        await review.confirm(operatorOf(request), request.params.proposal_id, requestMeta(request)),
      ),
  );

  app.post(
    '/admin/proposals/:proposal_id/decline',
    operation({
      operationId: 'declineProposal',
      summary: "Four eyes: decline another admin's proposal (nothing changes)",
      description:
        'An admin other than the proposer (who withdraws instead: 403 FORBIDDEN), never the admin API key ' +
        '(403 FORBIDDEN). The optional reason is for operators only. No longer pending: 409 PROPOSAL_SETTLED.',
      tags,
      auth: 'admin',
      params: ProposalParams,
      body: DeclineBody,
      response: { 200: ProposalResponse },
      errors: ['PROPOSAL_SETTLED'],
    }),
    async (request) =>
      success(
        'Proposal declined.',
        await review.decline(
          operatorOf(request),
          request.params.proposal_id,
          request.body?.reason ?? null,
          requestMeta(request),
        ),
      ),
  );

  app.post(
    '/admin/proposals/:proposal_id/withdraw',
    operation({
      operationId: 'withdrawProposal',
      summary: 'Four eyes: withdraw your own proposal',
      description:
        'Its proposer only (another operator: 403 FORBIDDEN; the admin API key withdraws the proposals made ' +
        'with it). No longer pending: 409 PROPOSAL_SETTLED.',
      tags,
      auth: 'admin',
      params: ProposalParams,
      response: { 200: ProposalResponse },
      errors: ['PROPOSAL_SETTLED'],
    }),
    async (request) =>
      success(
        'Proposal withdrawn.',
        await review.withdraw(operatorOf(request), request.params.proposal_id, requestMeta(request)),
      ),
  );

  app.put(
    '/admin/partners/:company_id/assignee',
    operation({
      operationId: 'assignPartner',
      summary: "Claim a partner's review, or (an admin) assign it to an operator",
      description:
        'Without `operator_id` the calling operator claims the partner: 409 ALREADY_ASSIGNED while another ' +
        'operator works on it. With `operator_id` an admin (or the admin API key, which must name one) assigns ' +
        'any active operator, taking it from whoever had it; a reviewer naming someone else is 403 FORBIDDEN. ' +
        'Every change is audited (partner.assigned, with the previous assignee). The queue shows the assignee ' +
        'and filters by it (`assigned_to`).',
      tags,
      auth: 'admin',
      params: PartnerParams,
      body: AssignmentBody,
      response: { 200: AssignmentResponse },
      errors: ['ALREADY_ASSIGNED'],
    }),
    async (request) => {
      const data = await review.assign(
        operatorOf(request),
        request.params.company_id,
        request.body?.operator_id,
        requestMeta(request),
      );
      return success(data.assigned_to ? `Assigned to ${data.assigned_to.name}.` : 'Unassigned.', data);
    },
  );

  app.delete(
    '/admin/partners/:company_id/assignee',
    operation({
      operationId: 'unassignPartner',
      summary: "Let go of a partner's review (a reviewer its own; an admin anyone's)",
      description:
        'Leaves the partner assigned to nobody. A reviewer lets go only of its own (409 ALREADY_ASSIGNED for ' +
        "another's); an admin of anyone's. Already unassigned: 200, nothing changes. Audited (partner.unassigned).",
      tags,
      auth: 'admin',
      params: PartnerParams,
      response: { 200: AssignmentResponse },
      errors: ['ALREADY_ASSIGNED'],
    }),
    async (request) =>
      success(
        'Unassigned.',
        await review.assign(operatorOf(request), request.params.company_id, null, requestMeta(request)),
      ),
  );

  app.get(
    '/admin/partners/:company_id/documents/:document_id/file',
    operation({
      operationId: 'downloadDocumentFile',
      summary: 'Download an uploaded file',
      description:
        'Streams the stored bytes with their detected Content-Type (a PDF, JPEG or PNG by its magic bytes), ' +
        'always as an attachment that no page may frame, under a sandboxing Content-Security-Policy: a ' +
        "browser never runs a PDF's scripts on this origin. URL documents have no stored file (404), nor has " +
        'an upload superseded before any operator decided it (its file is deleted: 404; see file_deleted_at in ' +
        'the partner record). The console previews a PDF by drawing its pages itself (pdf.js, no scripts), ' +
        'and an image in an <img>. The `disposition=inline` of earlier versions is gone (an unknown query ' +
        'parameter is ignored).',
      tags,
      auth: 'admin',
      params: DocumentParams,
      response: { 200: FileResponse },
      successHeaders: fileHeaders,
    }),
    async (request, reply) => {
      const file = await review.openDocumentFile(request.params.company_id, request.params.document_id);
      return sendFile(reply, file, `${file.document.document_type}-${file.document.id}`);
    },
  );

  app.get(
    '/admin/audit-events',
    operation({
      operationId: 'listAuditEvents',
      summary: 'Audit trail, newest first: every state change, login, key and admin action',
      description:
        'Who did what, when, from where: actor (with its name: the operator, or the partner), action, target, ' +
        'request id and IP of every state change, login (successful or not), key and operator action. Filters ' +
        'combine: company_id, company (text in the business name or e-mail), operator (text in the acting ' +
        "operator's name or e-mail), action, actor_type, actor_id, created_from and created_to (inclusive; a date " +
        'alone means that whole day, UTC). With `Accept: text/csv` every matching event (all pages) as CSV, ' +
        'streamed: header row ' +
        AUDIT_CSV_COLUMNS.join(',') +
        ', every cell in double quotes, a cell starting ' +
        'with =, +, -, @, tab or carriage return prefixed with an apostrophe. Never holds a secret or a whole BVN.',
      tags,
      auth: 'admin',
      querystring: AuditQuery,
      response: { 200: AuditEventsResponse },
    }),
    async (request, reply) => {
      const { limit, cursor, company_id, action, actor_type, actor_id, company, operator } = request.query;
      const range = createdRange(request.query);
      // A filter left out is undefined: the repository skips it, and the cursor's JSON drops it.
      const filter = {
        partnerId: company_id,
        action,
        actorType: actor_type,
        actorId: actor_id,
        company,
        operator,
        createdFrom: range.from,
        createdTo: range.to,
      };
      if (wantsCsv(request.headers.accept)) {
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="audit-events.csv"')
          .send(Readable.from(csvDocument(AUDIT_CSV_COLUMNS, audit.exportPages(filter), auditCsvCells)));
      }
      const data = await audit.list({ limit, ...(cursor !== undefined ? { cursor } : {}), ...filter });
      return success('Audit events.', data);
    },
  );
};

const AUDIT_CSV_COLUMNS = [
  'created_at',
  'company_id',
  'company_name',
  'actor_type',
  'actor_id',
  'actor_name',
  'actor_email',
  'action',
  'target_type',
  'target_id',
  'request_id',
  'ip',
] as const;

type AuditEventView = Awaited<ReturnType<AuditService['list']>>['items'][number];

const auditCsvCells = (event: AuditEventView) => [
  event.created_at,
  event.company_id,
  event.company_name,
  event.actor.type,
  event.actor.id,
  event.actor.name,
  event.actor.email,
  event.action,
  event.target?.type ?? null,
  event.target?.id ?? null,
  event.request_id,
  event.ip,
];
