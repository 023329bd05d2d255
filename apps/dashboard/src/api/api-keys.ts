import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@client/dashboard';
import { dash, unwrap } from './http';
import { queryKeys } from './query-keys';

export type ApiKey = components['schemas']['ApiKeyDto'];
export type ApiKeyScope = 'read' | 'write';

/** The account's API keys, revoked ones included, newest first. */
export function useApiKeys() {
  return useQuery({ queryKey: queryKeys.apiKeys(), queryFn: async () => unwrap(await dash.GET('/dashboard/api/api-keys', { params: { query: { page_size: 100 } } })) });
}

/** Creates a key; the answer carries its secret, shown once. */
export function useCreateApiKey(onCreated: (secret: string) => void) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: { name: string; scopes: ApiKeyScope[]; limits?: { maxRewardCents: number | null; dailyLimitCents: number | null } }) => unwrap(await dash.POST('/dashboard/api/api-keys', { body })),
    onSuccess: (answer) => {
      onCreated(answer.secret);
      void client.invalidateQueries({ queryKey: queryKeys.apiKeys() });
    },
  });
}

export function useRevokeApiKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => unwrap(await dash.DELETE('/dashboard/api/api-keys/{id}', { params: { path: { id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.apiKeys() }),
  });
}
