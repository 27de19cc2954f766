import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { partnerApi, partnerSession } from '@/lib/api/partner-api';
import { partnerSessionQuery } from './session';

// The link's token is a secret: it travels in request bodies only, never in a URL the server, a
// proxy or the browser's history would keep.

/**
 * What an invitation link is for (POST /client/onboarding/invitations/preview): 404 unknown, used or
 * revoked; 410 INVITATION_EXPIRED.
 */
export const invitationPreviewQuery = (token: string) =>
  queryOptions({
    // Keyed by a prefix only, enough to tell links apart.
    queryKey: ['partner-invitation', token.slice(0, 8)],
    queryFn: ({ signal }) =>
      unwrap(
        partnerApi.POST('/baas/api/v1/client/onboarding/invitations/preview', { body: { token }, signal }),
      ),
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 0,
  });

export interface Acceptance {
  name: string;
  password: string;
  password_confirmation: string;
}

/** Accepts with a cookie session (as sign-in does), then reads who is signed in. */
export function useAcceptInvitation(token: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: Acceptance) => {
      const login = await unwrap(
        partnerApi.POST('/baas/api/v1/client/onboarding/invitations/accept', {
          body: { token, ...body, session: 'cookie' },
        }),
      );
      partnerSession.signedIn(queryClient, login.csrf_token ?? null);
      return queryClient.fetchQuery({ ...partnerSessionQuery, staleTime: 0 });
    },
  });
}
