import { useQuery } from '@tanstack/react-query';
import type { operations } from '@client/dashboard';
import { dash, unwrap } from './http';

/** An audit-log action, as openapi.dashboard.yaml lists them. */
export type AuditAction = NonNullable<NonNullable<operations['listAuditLog']['parameters']['query']>['action']>;

export const useApiKeys = () =>
  useQuery({ queryKey: ['api-keys'], queryFn: async () => unwrap(await dash.GET('/dashboard/api/api-keys', { params: { query: { page_size: 100 } } })) });
export const useMembers = () => useQuery({ queryKey: ['members'], queryFn: async () => unwrap(await dash.GET('/dashboard/api/members')) });
export const useInvitations = () => useQuery({ queryKey: ['invitations'], queryFn: async () => unwrap(await dash.GET('/dashboard/api/invitations')) });
export const useConnectedApps = () => useQuery({ queryKey: ['connected-apps'], queryFn: async () => unwrap(await dash.GET('/dashboard/api/connected-apps')) });
export const useAuditLog = (page: number, action?: AuditAction) =>
  useQuery({
    queryKey: ['audit-log', page, action],
    queryFn: async () => unwrap(await dash.GET('/dashboard/api/audit-log', { params: { query: { page, page_size: 50, action } } })),
  });
