import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { operatorApi } from '@/lib/api/operator-api';
import { adminKeys } from '@/lib/operator-query-keys';

const sessionsKey = [...adminKeys.all, 'own-sessions'] as const;

/** The signed-in operator's live sessions, the current one marked. */
export const ownSessionsQuery = queryOptions({
  queryKey: sessionsKey,
  queryFn: ({ signal }) => unwrap(operatorApi.GET('/baas/api/v1/admin/me/sessions', { signal })),
  staleTime: 5_000,
});

function useInvalidateSessions() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: sessionsKey });
}

/** A new password given the current one; every other session ends with it. */
export function useChangePassword() {
  const invalidate = useInvalidateSessions();
  return useMutation({
    mutationFn: (body: { current_password: string; password: string; password_confirmation: string }) =>
      unwrap(operatorApi.POST('/baas/api/v1/admin/me/password', { body })),
    onSuccess: invalidate,
  });
}

export function useEndSession() {
  const invalidate = useInvalidateSessions();
  return useMutation({
    mutationFn: (id: string) =>
      unwrap(operatorApi.DELETE('/baas/api/v1/admin/me/sessions/{id}', { params: { path: { id } } })),
    onSuccess: invalidate,
  });
}

export function useEndOtherSessions() {
  const invalidate = useInvalidateSessions();
  return useMutation({
    mutationFn: () => unwrap(operatorApi.POST('/baas/api/v1/admin/me/sessions/end-others')),
    onSuccess: invalidate,
  });
}
