import { useQuery } from '@tanstack/react-query';
import { dashboardApi } from './http';
import type { Role } from './session';

// Shapes of the dashboard-only API (/dashboard/api), which API keys and OAuth tokens never reach.

export interface ApiKey {
  id: string;
  name: string;
  scopes: ('read' | 'write')[];
  last4: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface Member {
  userId: string;
  email: string;
  role: Role;
  createdAt: string;
}

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  createdAt: string;
  expiresAt: string;
}

export interface AuditEntry {
  id: string;
  actor: { type: 'user' | 'api_key' | 'oauth_app' | 'operator'; id: string; label: string };
  action: string;
  targetType: string | null;
  targetId: string | null;
  metadata: Record<string, unknown>;
  ipAddress: string | null;
  createdAt: string;
}

export interface ConnectedApp {
  id: string;
  clientId: string;
  appName: string;
  scopes: string[];
  createdAt: string;
}

export const useApiKeys = () =>
  useQuery({ queryKey: ['api-keys'], queryFn: () => dashboardApi<{ apiKeys: ApiKey[]; total: number }>('GET', '/api-keys?page_size=100') });
export const useMembers = () => useQuery({ queryKey: ['members'], queryFn: () => dashboardApi<{ members: Member[] }>('GET', '/members') });
export const useInvitations = () =>
  useQuery({ queryKey: ['invitations'], queryFn: () => dashboardApi<{ invitations: Invitation[] }>('GET', '/invitations') });
export const useConnectedApps = () =>
  useQuery({ queryKey: ['connected-apps'], queryFn: () => dashboardApi<{ connectedApps: ConnectedApp[] }>('GET', '/connected-apps') });
export const useAuditLog = (page: number, action?: string) =>
  useQuery({
    queryKey: ['audit-log', page, action],
    queryFn: () =>
      dashboardApi<{ entries: AuditEntry[]; total: number }>(
        'GET',
        `/audit-log?${new URLSearchParams({ page: String(page), page_size: '50', ...(action ? { action } : {}) })}`,
      ),
  });
