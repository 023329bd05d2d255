import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
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
    onSuccess: (session) => {
      client.clear();
      client.setQueryData(SESSION_KEY, remember(session));
    },
  });
}

export function useSignOut() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () => unwrap(await dash.DELETE('/dashboard/api/session')),
    onSettled: () => {
      client.clear();
      client.setQueryData(SESSION_KEY, remember(null));
    },
  });
}

export function useSwitchAccount() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (accountId: string) => unwrap(await dash.POST('/dashboard/api/session/account', { body: { accountId } })),
    onSuccess: (session) => {
      // Everything cached belongs to the previous account.
      client.clear();
      client.setQueryData(SESSION_KEY, remember(session));
    },
  });
}

/** The role of the signed-in user in the current account. */
export function currentRole(session: DashboardSession): Role | null {
  return session.memberships.find((m) => m.accountId === session.currentAccountId)?.role ?? null;
}
