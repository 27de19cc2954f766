import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { partnerSession } from '@/lib/api/partner-api';
import { pendingApi } from '@/lib/api/partner-pending';
import { partnerKeys } from '@/lib/partner-query-keys';
import type { PartnerRole } from '@/lib/partner-roles';

const USERS = '/baas/api/v1/services/partner/settings/users';
const INVITATIONS = '/baas/api/v1/services/partner/settings/invitations';

/** Someone who signs in to the business's dashboard. */
export interface PartnerUser {
  id: string;
  email: string;
  name: string;
  role: PartnerRole;
  /** The signed-in user. */
  is_you: boolean;
  created_at: string;
  last_login_at: string | null;
  invited_by: { id: string; name: string } | null;
}

/** An invitation (the list holds the pending ones, newest first). */
export interface Invitation {
  id: string;
  email: string;
  role: PartnerRole;
  status: 'pending' | 'accepted' | 'revoked' | 'expired';
  expires_at: string;
  created_at: string;
  invited_by: { id: string; name: string };
}

/** Every current user, owners first. */
export const usersQuery = queryOptions({
  queryKey: partnerKeys.users,
  queryFn: ({ signal }) => unwrap<PartnerUser[]>(pendingApi.GET(USERS, { signal })),
});

/** The pending invitations, newest first. */
export const invitationsQuery = queryOptions({
  queryKey: partnerKeys.invitations,
  queryFn: ({ signal }) => unwrap<Invitation[]>(pendingApi.GET(INVITATIONS, { signal })),
});

/** Invites someone by e-mail with a role; a pending invitation of the same address is replaced. */
export function useInvite() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { email: string; role: PartnerRole }) =>
      unwrap<Invitation>(pendingApi.POST(INVITATIONS, { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: partnerKeys.invitations }),
  });
}

/** A new link and expiry, e-mailed again; the old link stops working. */
export function useResendInvitation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      unwrap<Invitation>(pendingApi.POST(`${INVITATIONS}/{id}/resend`, { params: { path: { id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: partnerKeys.invitations }),
  });
}

export function useRevokeInvitation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      unwrap<Invitation>(pendingApi.DELETE(`${INVITATIONS}/{id}`, { params: { path: { id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: partnerKeys.invitations }),
  });
}

/** Changing one's own role changes what the session may do: the session is read again too. */
export function useChangeRole() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, role }: { id: string; role: PartnerRole }) =>
      unwrap<PartnerUser>(pendingApi.PATCH(`${USERS}/{id}`, { params: { path: { id } }, body: { role } })),
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
    mutationFn: (id: string) =>
      unwrap<PartnerUser>(pendingApi.DELETE(`${USERS}/{id}`, { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: partnerKeys.users }),
  });
}
