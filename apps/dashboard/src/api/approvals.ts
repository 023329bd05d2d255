import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dash, unwrap, v1 } from './http';
import { queryKeys } from './query-keys';

/** The approval threshold (docs/controls.md, Approvals): sends worth this much or more wait for an admin or owner. */
export function useApprovalSettings() {
  return useQuery({
    queryKey: queryKeys.approvals.settings(),
    queryFn: async () => (await unwrap(await v1.GET('/v1/account/approval-settings'))).approvalSettings,
  });
}

export function useSaveApprovalSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (thresholdCents: number | null) =>
      (await unwrap(await v1.PUT('/v1/account/approval-settings', { body: { approvalSettings: { thresholdCents } } }))).approvalSettings,
    onSuccess: (saved) => client.setQueryData(queryKeys.approvals.settings(), saved),
  });
}

/** The sends waiting for a decision, oldest first. */
export function usePendingApprovals() {
  return useQuery({ queryKey: queryKeys.approvals.pending(), queryFn: async () => (await unwrap(await dash.GET('/dashboard/api/approvals'))).approvals });
}

/** How many sends wait (the navigation badge); read again every minute. */
export function usePendingApprovalCount(enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.approvals.count(),
    queryFn: async () => (await unwrap(await dash.GET('/dashboard/api/approvals/count'))).count,
    enabled,
    refetchInterval: 60_000,
  });
}

/** Approves or rejects a waiting send; the lists, the badge and the money figures are read again. */
export function useDecideApproval() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, decision }: { id: string; decision: 'approve' | 'reject' }) =>
      decision === 'approve'
        ? unwrap(await dash.POST('/dashboard/api/approvals/{rewardId}/approve', { params: { path: { rewardId: id } } }))
        : unwrap(await dash.POST('/dashboard/api/approvals/{rewardId}/reject', { params: { path: { rewardId: id } } })),
    onSettled: () => {
      void client.invalidateQueries({ queryKey: queryKeys.approvals.all() });
      void client.invalidateQueries({ queryKey: queryKeys.rewards.all() });
      void client.invalidateQueries({ queryKey: queryKeys.wallet.all() });
      void client.invalidateQueries({ queryKey: queryKeys.overview() });
    },
  });
}
