import type { Scope } from '../api/session';

export interface Page {
  to: string;
  label: string;
  /** The scope the page's calls need; null for a page every signed-in member uses (their own password). */
  scope: Scope | null;
}

/**
 * The navigation, in order. A page is offered, and rendered, only when the session reports the
 * scope it needs: which role holds which scope is the server's table, not a copy here.
 */
export const PAGES: readonly Page[] = [
  { to: '/', label: 'Overview', scope: 'account:read' },
  { to: '/rewards', label: 'Rewards', scope: 'rewards:read' },
  { to: '/send', label: 'Send', scope: 'rewards:write' },
  { to: '/approvals', label: 'Approvals', scope: 'rewards:read' },
  { to: '/catalog', label: 'Catalog', scope: 'catalog:read' },
  { to: '/wallet', label: 'Wallet', scope: 'wallet:read' },
  // Rewards reports need rewards:read, transaction reports wallet:read; every role holds both (the page offers what the session may read).
  { to: '/reports', label: 'Reports', scope: 'rewards:read' },
  { to: '/webhooks', label: 'Webhooks', scope: 'webhooks:read' },
  { to: '/developers', label: 'Developers', scope: 'api_keys:manage' },
  { to: '/team', label: 'Team', scope: 'team:manage' },
  { to: '/settings', label: 'Settings', scope: null },
  { to: '/audit-log', label: 'Audit log', scope: 'audit_log:read' },
];

/** The pages a session holding `scopes` may open, in navigation order. */
export function pagesFor(scopes: readonly Scope[]): Page[] {
  return PAGES.filter((page) => page.scope === null || scopes.includes(page.scope));
}

/** Whether a session holding `scopes` may open the page at `to`. */
export function mayOpen(scopes: readonly Scope[], to: string): boolean {
  return pagesFor(scopes).some((page) => page.to === to);
}
