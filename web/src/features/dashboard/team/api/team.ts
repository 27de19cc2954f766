import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { partnerApi } from '@/lib/api/partner-api';
import { partnerKeys } from '@/lib/partner-query-keys';

const TEAM = '/baas/api/v1/services/partner/settings/team';

export interface MemberFields {
  first_name: string;
  last_name: string;
  email: string;
  phone: string;
  dob: string;
  gender: 'male' | 'female';
  designation:
    | 'director'
    | 'compliance_officer'
    | 'chief_executive_officer'
    | 'chief_financial_officer'
    | 'company_secretary';
  id_type: 'national_id' | 'international_passport' | 'drivers_license' | 'voters_card';
  id_file_url: string;
  address: string;
  bvn?: string;
}

export const teamQuery = (cursor: string | undefined) =>
  queryOptions({
    queryKey: [...partnerKeys.team, { cursor }],
    queryFn: ({ signal }) =>
      unwrap(
        partnerApi.GET(TEAM, { params: { query: { limit: 20, ...(cursor ? { cursor } : {}) } }, signal }),
      ),
  });

export function useAddMember() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: MemberFields & { bvn: string }) => unwrap(partnerApi.POST(TEAM, { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: partnerKeys.team }),
  });
}

export function useUpdateMember() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: MemberFields }) =>
      unwrap(partnerApi.PUT(`${TEAM}/{memberId}`, { params: { path: { memberId: id } }, body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: partnerKeys.team }),
  });
}

export function useRemoveMember() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      unwrap(partnerApi.DELETE(`${TEAM}/{memberId}`, { params: { path: { memberId: id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: partnerKeys.team }),
  });
}
