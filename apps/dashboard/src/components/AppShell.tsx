import { useEffect, useRef, useState, type ReactNode } from 'react';
import { NavLink, useLocation } from 'react-router';
import type { DashboardSession } from '../api/session';
import { useSignOut, useSwitchAccount } from '../api/session';
import { usePendingApprovalCount } from '../api/approvals';
import type { Page } from './navigation';

/**
 * The top bar (account switcher, who is signed in, sign out) and the navigation of `pages`. Each
 * page gets its own document title, a skip link leads past the navigation, and moving to another
 * page moves the focus to its content, as a screen reader user expects of a new page.
 *
 * At phone width (docs/dashboard.md, Phone) the navigation is a disclosure: a "Menu" button
 * (`aria-expanded`, `aria-controls`) shows or hides the list of pages below it. Choosing a page or
 * pressing Escape closes it; Escape gives the focus back to the button. On wider screens the
 * button is not shown and the list is the sidebar.
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
  const [menuOpen, setMenuOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  const navList = useRef<HTMLUListElement>(null);
  useEffect(() => {
    setMenuOpen(false);
  }, [pathname]);
  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      const inside = navList.current?.contains(document.activeElement) ?? false;
      setMenuOpen(false);
      if (inside || document.activeElement === menuButton.current) menuButton.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [menuOpen]);
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
      <nav aria-label="Main" className={menuOpen ? 'nav nav-open' : 'nav'}>
        <button
          type="button"
          className="nav-toggle"
          aria-expanded={menuOpen}
          aria-controls="main-nav-list"
          ref={menuButton}
          onClick={() => setMenuOpen((open) => !open)}
        >
          <svg aria-hidden="true" focusable="false" width="18" height="18" viewBox="0 0 18 18">
            <path d="M2 4h14M2 9h14M2 14h14" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
          </svg>
          Menu
          {!!pending.data && (
            <span className="badge">
              {pending.data}
              <span className="visually-hidden"> waiting for approval</span>
            </span>
          )}
        </button>
        <ul id="main-nav-list" ref={navList}>
          {pages.map((page) => (
            <li key={page.to}>
              <NavLink
                to={page.to}
                end={page.to === '/'}
                onClick={() => {
                  setMenuOpen(false);
                  // The page shown again (its path unchanged): the focus goes to its content, not to a hidden link.
                  if (pathname === page.to) main.current?.focus();
                }}
              >
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
