import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dash, unwrap } from './http';
import { queryKeys } from './query-keys';

/** The OAuth apps connected to the account. */
export function useConnectedApps() {
  return useQuery({ queryKey: queryKeys.connectedApps(), queryFn: async () => unwrap(await dash.GET('/dashboard/api/connected-apps')) });
}

/** Disconnects an app: every token issued under the connection stops working at once. */
export function useRevokeConnectedApp() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => unwrap(await dash.DELETE('/dashboard/api/connected-apps/{id}', { params: { path: { id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.connectedApps() }),
  });
}
