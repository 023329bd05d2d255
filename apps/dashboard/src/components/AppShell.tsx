import type { ReactNode } from 'react';
import { NavLink } from 'react-router';
import type { DashboardSession, Role } from '../api/session';
import { ADMIN_ROLES as ADMINS, useSignOut, useSwitchAccount, WRITER_ROLES as WRITERS } from '../api/session';

interface Page {
  to: string;
  label: string;
  /** Roles that may use the page; a page the role may not use is not offered. */
  roles: readonly Role[];
}

const EVERYONE: readonly Role[] = ['viewer', 'developer', 'admin', 'owner'];

/** The navigation, in order; the roles follow the scopes each page's calls need (docs/dashboard.md). */
const PAGES: Page[] = [
  { to: '/', label: 'Overview', roles: EVERYONE },
  { to: '/rewards', label: 'Rewards', roles: EVERYONE },
  { to: '/send', label: 'Send', roles: WRITERS },
  { to: '/catalog', label: 'Catalog', roles: EVERYONE },
  { to: '/wallet', label: 'Wallet', roles: EVERYONE },
  { to: '/webhooks', label: 'Webhooks', roles: EVERYONE },
  { to: '/developers', label: 'Developers', roles: WRITERS },
  { to: '/team', label: 'Team', roles: ADMINS },
  { to: '/settings', label: 'Settings', roles: EVERYONE },
  { to: '/audit-log', label: 'Audit log', roles: ADMINS },
];

/** Whether `role` may open the page at `to`. */
export function mayOpen(role: Role | null, to: string): boolean {
  return PAGES.some((page) => page.to === to && role !== null && page.roles.includes(role));
}

export function AppShell({ session, role, children }: { session: DashboardSession; role: Role | null; children: ReactNode }) {
  const signOut = useSignOut();
  const switchAccount = useSwitchAccount();
  return (
    <div className="shell">
      <header className="topbar">
        <span className="brand">Rewards</span>
        {session.memberships.length > 0 && (
          <label className="account-switcher">
            Account
            <select
              value={session.currentAccountId ?? ''}
              onChange={(event) => switchAccount.mutate(event.target.value)}
              disabled={switchAccount.isPending}
            >
              {session.memberships.map((m) => (
                <option key={m.accountId} value={m.accountId}>
                  {m.accountName} ({m.role})
                </option>
              ))}
            </select>
          </label>
        )}
        <span className="who">{session.user.email}</span>
        <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
          Sign out
        </button>
      </header>
      <nav aria-label="Main" className="nav">
        <ul>
          {PAGES.filter((page) => role && page.roles.includes(role)).map((page) => (
            <li key={page.to}>
              <NavLink to={page.to} end={page.to === '/'}>
                {page.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main className="content">{children}</main>
    </div>
  );
}
