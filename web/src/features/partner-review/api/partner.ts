import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { operatorApi } from '@/lib/api/clients';
import { adminKeys } from '@/lib/query-keys';

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

/** The stored file, for the preview frame (or a new tab): served inline with a sandboxing CSP. */
export const documentFileUrl = (companyId: number, documentId: string) =>
  `/baas/api/v1/admin/partners/${companyId}/documents/${encodeURIComponent(documentId)}/file?disposition=inline`;

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

export type ApplicationAction = 'approve' | 'request-changes' | 'reject' | 'suspend' | 'reinstate';

export function useDecideApplication(companyId: number) {
  const invalidate = useInvalidateAfterDecision();
  return useMutation({
    mutationFn: ({ action, reason }: { action: ApplicationAction; reason?: string }) => {
      const params = { path: { company_id: companyId } };
      const body = { reason: reason ?? '' };
      switch (action) {
        case 'approve':
          return unwrap(operatorApi.POST('/baas/api/v1/admin/partners/{company_id}/approve', { params }));
        case 'request-changes':
          return unwrap(
            operatorApi.POST('/baas/api/v1/admin/partners/{company_id}/request-changes', { params, body }),
          );
        case 'reject':
          return unwrap(
            operatorApi.POST('/baas/api/v1/admin/partners/{company_id}/reject', { params, body }),
          );
        case 'suspend':
          return unwrap(
            operatorApi.POST('/baas/api/v1/admin/partners/{company_id}/suspend', { params, body }),
          );
        case 'reinstate':
          return unwrap(operatorApi.POST('/baas/api/v1/admin/partners/{company_id}/reinstate', { params }));
      }
    },
    onSuccess: invalidate,
  });
}
