import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { roles } from 'virtual:contract-enums';
import { dash, unwrap } from './http';
import { queryKeys } from './query-keys';
import { startSession, type Role } from './session';

/** A member's roles, weakest first, as openapi.dashboard.yaml lists them (read when the app is built). */
export const ROLES: readonly Role[] = roles;

export function useMembers() {
  return useQuery({ queryKey: queryKeys.team.members(), queryFn: async () => unwrap(await dash.GET('/dashboard/api/members')) });
}

export function useInvitations() {
  return useQuery({ queryKey: queryKeys.team.invitations(), queryFn: async () => unwrap(await dash.GET('/dashboard/api/invitations')) });
}

/** Inviting, revoking an invitation, changing a role and removing a member; each reads the team again. */
export function useTeamActions() {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: queryKeys.team.all() });
  return {
    invite: useMutation({
      mutationFn: async (body: { email: string; role: Role }) => unwrap(await dash.POST('/dashboard/api/invitations', { body })),
      onSuccess: refresh,
    }),
    revokeInvitation: useMutation({
      mutationFn: async (id: string) => unwrap(await dash.DELETE('/dashboard/api/invitations/{invitation}', { params: { path: { invitation: id } } })),
      onSuccess: refresh,
    }),
    resendInvitation: useMutation({
      mutationFn: async (id: string) =>
        unwrap(await dash.POST('/dashboard/api/invitations/{invitation}/resend', { params: { path: { invitation: id } } })),
      onSuccess: refresh,
    }),
    changeRole: useMutation({
      mutationFn: async ({ userId, role }: { userId: string; role: Role }) =>
        unwrap(await dash.PATCH('/dashboard/api/members/{userId}', { params: { path: { userId } }, body: { role } })),
      onSuccess: refresh,
    }),
    remove: useMutation({
      mutationFn: async (userId: string) => unwrap(await dash.DELETE('/dashboard/api/members/{userId}', { params: { path: { userId } } })),
      onSuccess: refresh,
    }),
  };
}

/** An invitation read by its link's token (no session needed); a used, revoked or expired one is an error, not retried. */
export function useInvitation(token: string) {
  return useQuery({
    queryKey: queryKeys.invitation(token),
    queryFn: async () => unwrap(await dash.GET('/dashboard/api/invitations/{invitation}', { params: { path: { invitation: token } } })),
    retry: false,
  });
}

/** Accepts an invitation (with a password for a new user); the answer is the new session, which replaces the old one. */
export function useAcceptInvitation(token: string, onJoined: () => void) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: { password?: string }) =>
      unwrap(await dash.POST('/dashboard/api/invitations/{invitation}/accept', { params: { path: { invitation: token } }, body })),
    onSuccess: (joined) => {
      startSession(client, joined);
      onJoined();
    },
  });
}
