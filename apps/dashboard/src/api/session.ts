import { QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@client/dashboard';
import { ApiFailure, dash, setCsrfToken, unwrap } from './http';
import { queryKeys } from './query-keys';

export type DashboardSession = components['schemas']['SessionDto'];
export type Membership = DashboardSession['memberships'][number];
export type Role = Membership['role'];
/** A permission the server checks calls against; the session reports those it holds on the current account. */
export type Scope = DashboardSession['scopes'][number];

function remember(session: DashboardSession | null): DashboardSession | null {
  setCsrfToken(session?.csrfToken ?? null);
  return session;
}

/**
 * A new session (signed in, out, or another account): everything cached belonged to the previous
 * one, so it goes; the session query itself is updated in place, so the pages watching it re-render.
 */
export function startSession(client: QueryClient, session: DashboardSession | null): void {
  const [sessionRoot] = queryKeys.session();
  client.removeQueries({ predicate: (query) => query.queryKey[0] !== sessionRoot });
  client.setQueryData(queryKeys.session(), remember(session));
}

/** The signed-in session, or null when nobody is signed in. */
export function useSession() {
  return useQuery({
    queryKey: queryKeys.session(),
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

/**
 * The role of the signed-in user in the current account: shown, and used for the one rule no scope
 * carries (only an owner makes, demotes or removes owners). What a page offers follows the scopes.
 */
export function currentRole(session: DashboardSession): Role | null {
  return session.memberships.find((m) => m.accountId === session.currentAccountId)?.role ?? null;
}

/** Whether the signed-in session holds `scope` on the current account (the server checks every call regardless). */
export function useHasScope(scope: Scope): boolean {
  return useSession().data?.scopes.includes(scope) ?? false;
}
