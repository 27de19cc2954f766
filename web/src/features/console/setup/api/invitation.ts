import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { operatorApi, operatorSession } from '@/lib/api/operator-api';

// The link's token is a secret: it travels in request bodies only, never in a URL the server,
// a proxy or the browser's history would keep.

/** What a set-up link is for (POST /admin/invitations/lookup): 404 used or unknown, 410 expired. */
export const invitationQuery = (token: string) =>
  queryOptions({
    // The cache keys it by a prefix only, enough to tell links apart.
    queryKey: ['invitation', token.slice(0, 8)],
    queryFn: ({ signal }) =>
      unwrap(operatorApi.POST('/baas/api/v1/admin/invitations/lookup', { body: { token }, signal })),
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 0,
  });

export interface EnrolmentBody {
  name?: string;
  password?: string;
  password_confirmation?: string;
}

/**
 * Step one: name and password (a new operator) or the operator's current password (a reset);
 * answers the TOTP secret.
 */
export function useStartEnrolment(token: string) {
  return useMutation({
    mutationFn: (body: EnrolmentBody) =>
      unwrap(operatorApi.POST('/baas/api/v1/admin/invitations/second-factor', { body: { token, ...body } })),
  });
}

/** Step two: the authenticator's code; opens the session and answers the recovery codes (shown once). */
export function useAcceptInvitation(token: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (code: string) =>
      unwrap(operatorApi.POST('/baas/api/v1/admin/invitations/accept', { body: { token, code } })),
    onSuccess: ({ recovery_codes: _shownOnce, ...session }) => operatorSession.remember(queryClient, session),
  });
}
