import { useQuery } from '@tanstack/react-query';
import { auditActions } from 'virtual:contract-enums';
import { dash, unwrap } from './http';
import { queryKeys } from './query-keys';

export type AuditAction = (typeof auditActions)[number];
/** Every audited action, as openapi.dashboard.yaml lists them (read when the app is built). */
export const AUDIT_ACTIONS = auditActions;

/** One page (50 entries) of the audit log, optionally of one action only. */
export function useAuditLog(page: number, action?: AuditAction) {
  return useQuery({
    queryKey: queryKeys.auditLog(page, action),
    queryFn: async () => unwrap(await dash.GET('/dashboard/api/audit-log', { params: { query: { page, page_size: 50, action } } })),
  });
}
