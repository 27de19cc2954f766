import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { operatorApi } from '@/lib/api/operator-api';
import type { OperatorRole } from '@/lib/api/operator-types';
import { adminKeys } from '@/lib/operator-query-keys';

export const operatorsQuery = queryOptions({
  queryKey: [...adminKeys.operators, 'list'],
  queryFn: ({ signal }) =>
    unwrap(operatorApi.GET('/baas/api/v1/admin/operators', { params: { query: { limit: 100 } }, signal })),
  staleTime: 5_000,
});

export const invitationsQuery = queryOptions({
  queryKey: [...adminKeys.invitations, 'list'],
  queryFn: ({ signal }) =>
    unwrap(operatorApi.GET('/baas/api/v1/admin/invitations', { params: { query: { limit: 100 } }, signal })),
  staleTime: 5_000,
});

function useInvalidateOperators() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: adminKeys.operators }),
      queryClient.invalidateQueries({ queryKey: adminKeys.invitations }),
      queryClient.invalidateQueries({ queryKey: adminKeys.auditEvents }),
    ]);
}

/** An invitation: the answer holds the one-time link, shown once. */
export function useInviteOperator() {
  const invalidate = useInvalidateOperators();
  return useMutation({
    mutationFn: (body: { email: string; role: OperatorRole }) =>
      unwrap(operatorApi.POST('/baas/api/v1/admin/invitations', { body })),
    onSuccess: invalidate,
  });
}

export function useDeactivateOperator() {
  const invalidate = useInvalidateOperators();
  return useMutation({
    mutationFn: (id: string) =>
      unwrap(operatorApi.POST('/baas/api/v1/admin/operators/{id}/deactivate', { params: { path: { id } } })),
    onSuccess: invalidate,
  });
}

/** Drops the operator's second factor; the answer holds the set-up link for a new one, shown once. */
export function useResetSecondFactor() {
  const invalidate = useInvalidateOperators();
  return useMutation({
    mutationFn: (id: string) =>
      unwrap(
        operatorApi.POST('/baas/api/v1/admin/operators/{id}/reset-second-factor', {
          params: { path: { id } },
        }),
      ),
    onSuccess: invalidate,
  });
}
