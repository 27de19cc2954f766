import { ApiError } from '@baas/sdk';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { operatorApi } from '@/lib/api/operator-api';
import type { DecisionProposal, PartnerRecord } from '@/lib/api/operator-types';
import { adminKeys } from '@/lib/operator-query-keys';

export const partnerQuery = (companyId: number) =>
  queryOptions({
    queryKey: [...adminKeys.partners, 'record', companyId],
    queryFn: ({ signal }) =>
      unwrap(
        operatorApi.GET('/baas/api/v1/admin/partners/{company_id}', {
          params: { path: { company_id: companyId } },
          signal,
        }),
      ),
    // A decision is made on what the partner has on file now.
    staleTime: 0,
  });

/**
 * The stored file, always served as an attachment: a link to it downloads the file, and the image
 * preview's <img> loads it (an image element runs nothing, whatever the bytes).
 */
export const documentFileUrl = (companyId: number, documentId: string) =>
  `/baas/api/v1/admin/partners/${companyId}/documents/${encodeURIComponent(documentId)}/file`;

/**
 * A PDF's bytes for the preview, read with the console's session (so an ended session is noticed
 * as on any other request) and drawn by pdf.js in the page: never handed to the browser's viewer.
 */
export const documentFileQuery = (companyId: number, documentId: string) =>
  queryOptions({
    queryKey: [...adminKeys.documentFiles, companyId, documentId],
    queryFn: async ({ signal }) => {
      const { data, error, response } = await operatorApi.GET(
        '/baas/api/v1/admin/partners/{company_id}/documents/{document_id}/file',
        {
          params: { path: { company_id: companyId, document_id: documentId } },
          parseAs: 'arrayBuffer',
          signal,
        },
      );
      if (!response.ok || data === undefined) throw ApiError.from(response, error);
      return data;
    },
    staleTime: Number.POSITIVE_INFINITY,
  });

/** After a decision: the partner's record, the queue and the audit trail have changed. */
function useInvalidateAfterDecision() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: adminKeys.partners }),
      queryClient.invalidateQueries({ queryKey: adminKeys.auditEvents }),
    ]);
}

export type DocumentDecision =
  | { documentId: string; decision: 'approve' }
  | {
      documentId: string;
      decision: 'reject';
      reason: string;
    };

export function useDecideDocument(companyId: number) {
  const invalidate = useInvalidateAfterDecision();
  return useMutation({
    mutationFn: (input: DocumentDecision) => {
      const params = { path: { company_id: companyId, document_id: input.documentId } };
      return input.decision === 'approve'
        ? unwrap(
            operatorApi.POST('/baas/api/v1/admin/partners/{company_id}/documents/{document_id}/approve', {
              params,
            }),
          )
        : unwrap(
            operatorApi.POST('/baas/api/v1/admin/partners/{company_id}/documents/{document_id}/reject', {
              params,
              body: { reason: input.reason },
            }),
          );
    },
    onSuccess: invalidate,
  });
}

/** Claims the partner's review for the signed-in operator, or lets go of it. */
export function useAssignment(companyId: number) {
  const invalidate = useInvalidateAfterDecision();
  return useMutation({
    mutationFn: (claim: boolean) => {
      const params = { path: { company_id: companyId } };
      return claim
        ? unwrap(operatorApi.PUT('/baas/api/v1/admin/partners/{company_id}/assignee', { params, body: {} }))
        : unwrap(operatorApi.DELETE('/baas/api/v1/admin/partners/{company_id}/assignee', { params }));
    },
    onSuccess: invalidate,
  });
}

export type ApplicationAction = 'approve' | 'request-changes' | 'reject' | 'suspend' | 'reinstate';

/** The partner's record after a decision, or under four eyes (202) the proposal it became. */
type DecisionAnswer = PartnerRecord | DecisionProposal;

export function useDecideApplication(companyId: number) {
  const invalidate = useInvalidateAfterDecision();
  return useMutation({
    mutationFn: ({
      action,
      reason,
      internalNote,
    }: {
      action: ApplicationAction;
      reason?: string;
      internalNote?: string;
    }) => {
      const params = { path: { company_id: companyId } };
      const body = { reason: reason ?? '', ...(internalNote ? { internal_note: internalNote } : {}) };
      switch (action) {
        case 'approve':
          return unwrap<DecisionAnswer>(
            operatorApi.POST('/baas/api/v1/admin/partners/{company_id}/approve', { params }),
          );
        case 'request-changes':
          return unwrap<DecisionAnswer>(
            operatorApi.POST('/baas/api/v1/admin/partners/{company_id}/request-changes', { params, body }),
          );
        case 'reject':
          return unwrap<DecisionAnswer>(
            operatorApi.POST('/baas/api/v1/admin/partners/{company_id}/reject', { params, body }),
          );
        case 'suspend':
          return unwrap<DecisionAnswer>(
            operatorApi.POST('/baas/api/v1/admin/partners/{company_id}/suspend', { params, body }),
          );
        case 'reinstate':
          return unwrap<DecisionAnswer>(
            operatorApi.POST('/baas/api/v1/admin/partners/{company_id}/reinstate', { params }),
          );
      }
    },
    onSuccess: invalidate,
  });
}

export type ProposalStep = 'confirm' | 'decline' | 'withdraw';

/** Four eyes: another admin confirms or declines a pending proposal; its proposer withdraws it. */
export function useSettleProposal() {
  const invalidate = useInvalidateAfterDecision();
  return useMutation({
    mutationFn: ({
      proposalId,
      step,
      reason,
    }: {
      proposalId: string;
      step: ProposalStep;
      /** Decline only: why, for the proposer and the audit trail (never the partner). */
      reason?: string;
    }) => {
      const params = { path: { proposal_id: proposalId } };
      switch (step) {
        case 'confirm':
          return unwrap(operatorApi.POST('/baas/api/v1/admin/proposals/{proposal_id}/confirm', { params }));
        case 'decline':
          return unwrap(
            operatorApi.POST('/baas/api/v1/admin/proposals/{proposal_id}/decline', {
              params,
              body: reason ? { reason } : {},
            }),
          );
        case 'withdraw':
          return unwrap(operatorApi.POST('/baas/api/v1/admin/proposals/{proposal_id}/withdraw', { params }));
      }
    },
    onSettled: invalidate,
  });
}
