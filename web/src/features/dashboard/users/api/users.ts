import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { partnerApi, partnerSession } from '@/lib/api/partner-api';
import type { PartnerInvitation as Invitation, PartnerUser } from '@/lib/api/partner-types';
import { partnerKeys } from '@/lib/partner-query-keys';
import type { PartnerRole } from '@/lib/partner-roles';

const USERS = '/baas/api/v1/services/partner/settings/users';
const INVITATIONS = '/baas/api/v1/services/partner/settings/invitations';

export type { Invitation, PartnerUser };

/** Every current user, owners first. */
export const usersQuery = queryOptions({
  queryKey: partnerKeys.users,
  queryFn: ({ signal }) => unwrap(partnerApi.GET(USERS, { signal })),
});

/** The pending invitations, newest first. */
export const invitationsQuery = queryOptions({
  queryKey: partnerKeys.invitations,
  queryFn: ({ signal }) => unwrap(partnerApi.GET(INVITATIONS, { signal })),
});

/**
 * Invites someone by e-mail with a role; a pending invitation of the same address is replaced. The
 * Idempotency-Key is made once per form (`attempt`): a retry after a lost answer sends no second
 * e-mail and leaves the first link working.
 */
export function useInvite() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ body, attempt }: { body: { email: string; role: PartnerRole }; attempt: string }) =>
      unwrap(partnerApi.POST(INVITATIONS, { body, params: { header: { 'idempotency-key': attempt } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: partnerKeys.invitations }),
  });
}

/** A new link and expiry, e-mailed again; the old link stops working. */
export function useResendInvitation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      unwrap(partnerApi.POST(`${INVITATIONS}/{id}/resend`, { params: { path: { id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: partnerKeys.invitations }),
  });
}

export function useRevokeInvitation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      unwrap(partnerApi.DELETE(`${INVITATIONS}/{id}`, { params: { path: { id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: partnerKeys.invitations }),
  });
}

/** Changing one's own role changes what the session may do: the session is read again too. */
export function useChangeRole() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, role }: { id: string; role: PartnerRole }) =>
      unwrap(partnerApi.PATCH(`${USERS}/{id}`, { params: { path: { id } }, body: { role } })),
    onSuccess: async (user) => {
      await queryClient.invalidateQueries({ queryKey: partnerKeys.users });
      if (user.is_you) await queryClient.invalidateQueries({ queryKey: partnerSession.sessionKey });
    },
  });
}

/** Removes a user: their sessions end at once; API keys they created keep working until revoked. */
export function useRemoveUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => unwrap(partnerApi.DELETE(`${USERS}/{id}`, { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: partnerKeys.users }),
  });
}
