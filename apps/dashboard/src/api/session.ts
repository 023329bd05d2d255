import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiFailure, dashboardApi, setCsrfToken } from './http';

export type Role = 'viewer' | 'developer' | 'admin' | 'owner';

export interface Membership {
  accountId: string;
  accountName: string;
  role: Role;
}

export interface DashboardSession {
  user: { id: string; email: string };
  memberships: Membership[];
  currentAccountId: string | null;
  csrfToken: string;
}

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
        return remember(await dashboardApi<DashboardSession>('GET', '/session'));
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
    mutationFn: (input: { email: string; password: string; totpCode?: string }) =>
      dashboardApi<DashboardSession>('POST', '/session', input),
    onSuccess: (session) => {
      client.clear();
      client.setQueryData(SESSION_KEY, remember(session));
    },
  });
}

export function useSignOut() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => dashboardApi<void>('DELETE', '/session'),
    onSettled: () => {
      client.clear();
      client.setQueryData(SESSION_KEY, remember(null));
    },
  });
}

export function useSwitchAccount() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (accountId: string) => dashboardApi<DashboardSession>('POST', '/session/account', { accountId }),
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
