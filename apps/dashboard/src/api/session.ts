import { QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@client/dashboard';
import { ApiFailure, dash, setCsrfToken, unwrap } from './http';

export type DashboardSession = components['schemas']['SessionDto'];
export type Membership = DashboardSession['memberships'][number];
export type Role = Membership['role'];

const SESSION_KEY = ['session'] as const;

function remember(session: DashboardSession | null): DashboardSession | null {
  setCsrfToken(session?.csrfToken ?? null);
  return session;
}

/**
 * A new session (signed in, out, or another account): everything cached belonged to the previous
 * one, so it goes; the session query itself is updated in place, so the pages watching it re-render.
 */
export function startSession(client: QueryClient, session: DashboardSession | null): void {
  client.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] });
  client.setQueryData(SESSION_KEY, remember(session));
}

/** The signed-in session, or null when nobody is signed in. */
export function useSession() {
  return useQuery({
    queryKey: SESSION_KEY,
    queryFn: async () => {
      try {
        return remember(await unwrap(await dash.GET('/dashboard/api/session')));
      } catch (error) {
        if (error instanceof ApiFailure && error.status === 401) return remember(null);
        throw error;
      }
    },
    staleTime: 60_000,
  });
}

export function useSignIn() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (input: { email: string; password: string; totpCode?: string }) =>
      unwrap(await dash.POST('/dashboard/api/session', { body: input })),
    onSuccess: (session) => startSession(client, session),
  });
}

export function useSignOut() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () => unwrap(await dash.DELETE('/dashboard/api/session')),
    onSettled: () => startSession(client, null),
  });
}

export function useSwitchAccount() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (accountId: string) => unwrap(await dash.POST('/dashboard/api/session/account', { body: { accountId } })),
    onSuccess: (session) => startSession(client, session),
  });
}

/** The role of the signed-in user in the current account. */
export function currentRole(session: DashboardSession): Role | null {
  return session.memberships.find((m) => m.accountId === session.currentAccountId)?.role ?? null;
}

/** The signed-in user's role in the current account, or null (signed out, or no account). */
export function useRole(): Role | null {
  const session = useSession();
  return session.data ? currentRole(session.data) : null;
}

/** Roles that may send, cancel and manage webhooks and API keys (the write scopes). */
export const WRITER_ROLES: readonly Role[] = ['developer', 'admin', 'owner'];
/** Roles that may fund the wallet and change account settings, the team and catalog rules. */
export const ADMIN_ROLES: readonly Role[] = ['admin', 'owner'];
export const mayWrite = (role: Role | null): boolean => role !== null && WRITER_ROLES.includes(role);
export const isAdmin = (role: Role | null): boolean => role !== null && ADMIN_ROLES.includes(role);
