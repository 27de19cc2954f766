import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { partnerApi } from '@/lib/api/partner-api';
import type { Environment } from '@/lib/api/partner-types';
import { partnerKeys } from '@/lib/partner-query-keys';

const PATH = '/baas/api/v1/services/partner/settings/api-keys';

/** One page of the partner's API keys (both environments), without secrets. */
export const apiKeysQuery = (cursor: string | undefined) =>
  queryOptions({
    queryKey: [...partnerKeys.apiKeys, { cursor }],
    queryFn: ({ signal }) =>
      unwrap(
        partnerApi.GET(PATH, { params: { query: { limit: 20, ...(cursor ? { cursor } : {}) } }, signal }),
      ),
  });

/** Creates a key; the answer holds its secret, which the server never shows again. */
export function useCreateApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; environment: Environment }) => unwrap(partnerApi.POST(PATH, { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: partnerKeys.apiKeys }),
  });
}

export function useRevokeApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => unwrap(partnerApi.DELETE(`${PATH}/{id}`, { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: partnerKeys.apiKeys }),
  });
}
