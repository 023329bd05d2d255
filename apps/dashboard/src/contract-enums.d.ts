/**
 * The lists apps/dashboard/contract-enums.mts reads from the contract at build time. Their types
 * come from the clients generated from the same documents, so a value the app names that the
 * contract lacks fails the typecheck.
 */
declare module 'virtual:contract-enums' {
  import type { components as Dashboard, operations as DashboardOperations } from '@client/dashboard';
  import type { components as V1, operations as V1Operations } from '@client/schema';

  export const webhookEventTypes: readonly V1['schemas']['CreateWebhookEndpointDto']['events'][number][];
  export const rewardStatuses: readonly NonNullable<NonNullable<V1Operations['listRewards']['parameters']['query']>['status']>[];
  export const auditActions: readonly NonNullable<NonNullable<DashboardOperations['listAuditLog']['parameters']['query']>['action']>[];
  export const roles: readonly Dashboard['schemas']['SessionMembershipDto']['role'][];
}
