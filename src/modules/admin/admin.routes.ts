import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { AuditService } from '../../platform/audit/audit.service.js';
import { AppError } from '../../platform/errors/errors.js';
import { operatorOf, requestMeta } from '../../platform/http/auth.js';
import { csvDocument, wantsCsv } from '../../platform/http/csv.js';
import { FileResponse, fileHeaders, sendFile } from '../../platform/http/file-download.js';
import { operation } from '../../platform/http/route.js';
import { success } from '../../platform/http/schemas.js';
import { createdRange } from '../../platform/time-range.js';
import type { Decision, ReviewService } from '../onboarding/review.service.js';
import {
  AssignmentBody,
  AssignmentResponse,
  AuditEventsResponse,
  AuditQuery,
  DecisionBody,
  DocumentParams,
  PartnerListQuery,
  PartnerListResponse,
  PartnerParams,
  PartnerRecordResponse,
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
        'document approved (else 409 ONBOARDING_INCOMPLETE naming each gap).',
      tags,
      auth: 'admin',
      params: PartnerParams,
      response: { 200: PartnerRecordResponse },
      errors: ['ONBOARDING_INCOMPLETE', 'ONBOARDING_LOCKED'],
    }),
    async (request) => {
      await review.approve(operatorOf(request), request.params.company_id, requestMeta(request));
      return success('Partner approved.', await review.partnerRecord(request.params.company_id));
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
        'review_notes and sent in the onboarding.status_changed event; internal_note stays with operators (no tipping-off). Needs active (else 409 ONBOARDING_LOCKED).',
      tags,
      auth: 'admin',
      params: PartnerParams,
      body: DecisionBody,
      response: { 200: PartnerRecordResponse },
      errors: ['ONBOARDING_LOCKED'],
    }),
    async (request) => {
      await review.suspend(
        operatorOf(request),
        request.params.company_id,
        decisionOf(request.body),
        requestMeta(request),
      );
      return success('Partner suspended.', await review.partnerRecord(request.params.company_id));
    },
  );

  app.post(
    '/admin/partners/:company_id/reinstate',
    operation({
      operationId: 'reinstatePartner',
      summary: 'Reinstate a suspended partner (suspended → active)',
      description: 'Needs suspended (else 409 ONBOARDING_LOCKED).',
      tags,
      auth: 'admin',
      params: PartnerParams,
      response: { 200: PartnerRecordResponse },
      errors: ['ONBOARDING_LOCKED'],
    }),
    async (request) => {
      await review.reinstate(operatorOf(request), request.params.company_id, requestMeta(request));
      return success('Partner reinstated.', await review.partnerRecord(request.params.company_id));
    },
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
