import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AuditService } from '../../platform/audit/audit.service.js';
import { toIso } from '../../platform/clock.js';
import { requestMeta } from '../../platform/http/auth.js';
import { operation } from '../../platform/http/route.js';
import { type AcceptedFileType, FILE_EXTENSIONS } from '../../platform/storage/file-type.js';
import type { OnboardingService } from '../onboarding/onboarding.service.js';
import {
  AuditEventsResponse,
  AuditQuery,
  DocumentParams,
  PartnerListQuery,
  PartnerListResponse,
  PartnerParams,
  PartnerRecordResponse,
  ReasonBody,
  ReviewedDocumentResponse,
} from './admin.schemas.js';

const tags = ['Back office'];

const binary = { schema: { type: 'string', format: 'binary' } };
/** The bytes as uploaded, served with the type detected from them (never JSON). */
const FileResponse = Type.Unsafe({
  description: 'The file, with the Content-Type detected from its bytes.',
  content: { 'application/pdf': binary, 'image/jpeg': binary, 'image/png': binary },
});
const ADMIN = { type: 'admin' as const, id: 'admin' };

/**
 * The operator's back office, behind ADMIN_API_KEY. Registered only when the key is configured,
 * so without it every /admin path is an unknown route (404).
 */
export const adminRoutes: FastifyPluginAsyncTypebox<{
  onboarding: OnboardingService;
  audit: AuditService;
}> = async (app, { onboarding, audit }) => {
  const { admin } = onboarding;

  app.get(
    '/admin/partners',
    operation({
      operationId: 'listPartners',
      summary: 'Review queue: partners, oldest first, optionally by onboarding_status',
      description:
        '`pending_review=true` lists the partners awaiting a decision: applications under review, and ' +
        'approved partners with changes made afterwards (a new document, a representative with new ' +
        'identity data and its ID) that stay `active` until the operator decides the documents. Each item ' +
        'names what awaits review in `pending_review`.',
      tags,
      auth: 'admin',
      querystring: PartnerListQuery,
      response: { 200: PartnerListResponse },
    }),
    async (request) => {
      const data = await admin.listPartners({
        limit: request.query.limit ?? 20,
        ...(request.query.cursor !== undefined ? { cursor: request.query.cursor } : {}),
        ...(request.query.onboarding_status ? { onboardingStatus: request.query.onboarding_status } : {}),
        ...(request.query.pending_review !== undefined
          ? { pendingReview: request.query.pending_review }
          : {}),
      });
      return { status: 'success', message: 'Partners.', data };
    },
  );

  app.get(
    '/admin/partners/:company_id',
    operation({
      operationId: 'getPartnerRecord',
      summary: 'Full partner record: representative with KYC result (BVN masked), every document, KYC checks',
      tags,
      auth: 'admin',
      params: PartnerParams,
      response: { 200: PartnerRecordResponse },
    }),
    async (request) => ({
      status: 'success',
      message: 'Partner record.',
      data: await admin.partnerRecord(request.params.company_id),
    }),
  );

  for (const decision of ['approve', 'reject'] as const) {
    app.post(
      `/admin/partners/:company_id/documents/:document_id/${decision}`,
      operation({
        operationId: decision === 'approve' ? 'approveDocument' : 'rejectDocument',
        summary:
          decision === 'approve'
            ? 'Approve a document pending review'
            : 'Reject a document pending review, with a reason',
        description:
          'Only the current document of its type, while pending_review (else 409 ONBOARDING_LOCKED).',
        tags,
        auth: 'admin',
        params: DocumentParams,
        ...(decision === 'reject' ? { body: ReasonBody } : {}),
        response: { 200: ReviewedDocumentResponse },
        errors: ['ONBOARDING_LOCKED'],
      }),
      async (request) => {
        const { company_id: companyId, document_id: documentId } = request.params as DocumentParams;
        const reason = decision === 'reject' ? (request.body as { reason: string }).reason : null;
        const document = await admin.reviewDocument(
          companyId,
          documentId,
          { status: decision === 'approve' ? 'approved' : 'rejected', reason },
          ADMIN,
          requestMeta(request),
        );
        return {
          status: 'success',
          message: `Document ${document.status}.`,
          data: {
            id: document.id,
            document_type: document.document_type,
            status: document.status,
            rejection_reason: document.rejection_reason,
            reviewed_at: toIso(document.reviewed_at ?? 0),
          },
        };
      },
    );
  }

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
      await admin.approve(request.params.company_id, ADMIN, requestMeta(request));
      return {
        status: 'success',
        message: 'Partner approved.',
        data: await admin.partnerRecord(request.params.company_id),
      };
    },
  );

  for (const action of ['request-changes', 'reject'] as const) {
    app.post(
      `/admin/partners/:company_id/${action}`,
      operation({
        operationId: action === 'reject' ? 'rejectPartner' : 'requestPartnerChanges',
        summary:
          action === 'reject'
            ? 'Reject an application under review (final)'
            : 'Send an application under review back to the partner (in_progress, with review_notes)',
        tags,
        auth: 'admin',
        params: PartnerParams,
        body: ReasonBody,
        response: { 200: PartnerRecordResponse },
        errors: ['ONBOARDING_LOCKED'],
      }),
      async (request) => {
        const { company_id: companyId } = request.params as { company_id: number };
        const { reason } = request.body as { reason: string };
        await admin.assertPartner(companyId);
        if (action === 'reject') await admin.reject(companyId, reason, ADMIN, requestMeta(request));
        else await admin.requestChanges(companyId, reason, ADMIN, requestMeta(request));
        return {
          status: 'success',
          message: action === 'reject' ? 'Application rejected.' : 'Changes requested.',
          data: await admin.partnerRecord(companyId),
        };
      },
    );
  }

  app.get(
    '/admin/partners/:company_id/documents/:document_id/file',
    operation({
      operationId: 'downloadDocumentFile',
      summary: 'Download an uploaded file',
      description:
        'Streams the stored bytes with their detected Content-Type. URL documents have no stored file (404).',
      tags,
      auth: 'admin',
      params: DocumentParams,
      response: { 200: FileResponse },
    }),
    async (request, reply) => {
      const file = await admin.openDocumentFile(request.params.company_id, request.params.document_id);
      const extension = FILE_EXTENSIONS[file.contentType as AcceptedFileType] ?? 'bin';
      return reply
        .type(file.contentType)
        .header('content-length', file.size)
        .header(
          'content-disposition',
          `attachment; filename="${file.document.document_type}-${file.document.id}.${extension}"`,
        )
        .send(file.stream);
    },
  );

  app.get(
    '/admin/audit-events',
    operation({
      operationId: 'listAuditEvents',
      summary: 'Audit trail, newest first: every state change, login, key and admin action',
      tags,
      auth: 'admin',
      querystring: AuditQuery,
      response: { 200: AuditEventsResponse },
    }),
    async (request) => {
      const data = await audit.list({
        limit: request.query.limit ?? 20,
        ...(request.query.cursor !== undefined ? { cursor: request.query.cursor } : {}),
        ...(request.query.company_id !== undefined ? { partnerId: request.query.company_id } : {}),
      });
      return { status: 'success', message: 'Audit events.', data };
    },
  );
};
