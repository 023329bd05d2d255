import { useEffect, useRef, type ReactNode } from 'react';
import { NavLink, useLocation } from 'react-router';
import type { DashboardSession } from '../api/session';
import { useSignOut, useSwitchAccount } from '../api/session';
import { usePendingApprovalCount } from '../api/approvals';
import type { Page } from './navigation';

/**
 * The top bar (account switcher, who is signed in, sign out) and the navigation of `pages`. Each
 * page gets its own document title, a skip link leads past the navigation, and moving to another
 * page moves the focus to its content, as a screen reader user expects of a new page.
 */
export function AppShell({ session, pages, children }: { session: DashboardSession; pages: readonly Page[]; children: ReactNode }) {
  const signOut = useSignOut();
  const switchAccount = useSwitchAccount();
  const { pathname } = useLocation();
  const main = useRef<HTMLElement>(null);
  const firstPage = useRef(true);
  useEffect(() => {
    const page = pageAt(pages, pathname);
    document.title = page ? `${page.label} · Rewards` : 'Rewards';
    if (firstPage.current) firstPage.current = false;
    else main.current?.focus();
  }, [pages, pathname]);
  const pending = usePendingApprovalCount(pages.some((page) => page.to === '/approvals'));
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
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
          {pages.map((page) => (
            <li key={page.to}>
              <NavLink to={page.to} end={page.to === '/'}>
                {page.label}
                {page.to === '/approvals' && !!pending.data && (
                  <span className="badge">
                    {pending.data}
                    <span className="visually-hidden"> waiting</span>
                  </span>
                )}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main className="content" id="main" tabIndex={-1} ref={main}>
        {children}
      </main>
    </div>
  );
}

/** The navigation entry a path belongs to (a reward's page belongs to Rewards). */
function pageAt(pages: readonly Page[], pathname: string): Page | undefined {
  return [...pages].sort((a, b) => b.to.length - a.to.length).find((page) => (page.to === '/' ? pathname === '/' : pathname === page.to || pathname.startsWith(`${page.to}/`)));
}
