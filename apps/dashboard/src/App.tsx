import { Navigate, Route, Routes } from 'react-router';
import type { ReactElement } from 'react';
import { currentRole, useSession, type Scope } from './api/session';
import { AppShell } from './components/AppShell';
import { mayOpen, pagesFor } from './components/navigation';
import { StatusMessage } from './components/StatusMessage';
import { ApprovalsPage } from './pages/ApprovalsPage';
import { AuditLogPage } from './pages/AuditLogPage';
import { CatalogPage } from './pages/CatalogPage';
import { DevelopersPage } from './pages/DevelopersPage';
import { OverviewPage } from './pages/OverviewPage';
import { AcceptInvitationPage, ForgotPasswordPage, ResetPasswordPage } from './pages/PublicPages';
import { RewardDetailPage } from './pages/RewardDetailPage';
import { ReportsPage } from './pages/ReportsPage';
import { RewardsPage } from './pages/RewardsPage';
import { SendPage } from './pages/SendPage';
import { SettingsPage } from './pages/SettingsPage';
import { SignInPage } from './pages/SignInPage';
import { TeamPage } from './pages/TeamPage';
import { WalletPage } from './pages/WalletPage';
import { WebhooksPage } from './pages/WebhooksPage';

/** A page the session's scopes do not cover is neither offered nor rendered. */
function gated(scopes: readonly Scope[], to: string, page: ReactElement): ReactElement {
  return mayOpen(scopes, to) ? page : <StatusMessage kind="empty">Your role in this account cannot use this page.</StatusMessage>;
}

export function App() {
  const session = useSession();
  if (session.isPending) return <StatusMessage kind="loading">Loading…</StatusMessage>;
  if (session.isError) return <StatusMessage kind="error">The dashboard could not reach the service. Reload to try again.</StatusMessage>;
  if (!session.data) {
    return (
      <main>
        <Routes>
        <Route path="/sign-in" element={<SignInPage />} />
        <Route path="/forgot-password" element={<ForgotPasswordPage />} />
        <Route path="/reset-password/:token" element={<ResetPasswordPage />} />
        <Route path="/invitations/:token" element={<AcceptInvitationPage />} />
        <Route path="*" element={<Navigate to="/sign-in" replace />} />
        </Routes>
      </main>
    );
  }
  // No current account (removed from every one): no page is offered, only an invitation can be accepted.
  const member = currentRole(session.data) !== null;
  const { scopes } = session.data;
  return (
    <AppShell session={session.data} pages={member ? pagesFor(scopes) : []}>
      {member ? (
        <Routes>
          <Route path="/" element={gated(scopes, '/', <OverviewPage />)} />
          <Route path="/rewards" element={gated(scopes, '/rewards', <RewardsPage />)} />
          <Route path="/rewards/:id" element={gated(scopes, '/rewards', <RewardDetailPage />)} />
          <Route path="/send" element={gated(scopes, '/send', <SendPage />)} />
          <Route path="/approvals" element={gated(scopes, '/approvals', <ApprovalsPage />)} />
          <Route path="/catalog" element={gated(scopes, '/catalog', <CatalogPage />)} />
          <Route path="/wallet" element={gated(scopes, '/wallet', <WalletPage />)} />
          <Route path="/reports" element={gated(scopes, '/reports', <ReportsPage />)} />
          <Route path="/webhooks" element={gated(scopes, '/webhooks', <WebhooksPage />)} />
          <Route path="/developers" element={gated(scopes, '/developers', <DevelopersPage />)} />
          <Route path="/team" element={gated(scopes, '/team', <TeamPage />)} />
          <Route path="/audit-log" element={gated(scopes, '/audit-log', <AuditLogPage />)} />
          <Route path="/settings" element={gated(scopes, '/settings', <SettingsPage />)} />
          <Route path="/invitations/:token" element={<AcceptInvitationPage />} />
          <Route path="/sign-in" element={<Navigate to="/" replace />} />
          <Route path="*" element={<StatusMessage kind="empty">There is no such page.</StatusMessage>} />
        </Routes>
      ) : (
        <Routes>
          <Route path="/invitations/:token" element={<AcceptInvitationPage />} />
          <Route path="*" element={<StatusMessage kind="empty">You are not a member of any account any more.</StatusMessage>} />
        </Routes>
      )}
    </AppShell>
  );
}
