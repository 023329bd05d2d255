import { Navigate, Route, Routes } from 'react-router';
import { currentRole, useSession } from './api/session';
import type { ReactElement } from 'react';
import type { Role } from './api/session';
import { AppShell, mayOpen } from './components/AppShell';
import { StatusMessage } from './components/StatusMessage';
import { AuditLogPage } from './pages/AuditLogPage';
import { CatalogPage } from './pages/CatalogPage';
import { DevelopersPage } from './pages/DevelopersPage';
import { OverviewPage } from './pages/OverviewPage';
import { AcceptInvitationPage, ForgotPasswordPage, ResetPasswordPage } from './pages/PublicPages';
import { RewardDetailPage } from './pages/RewardDetailPage';
import { RewardsPage } from './pages/RewardsPage';
import { SendPage } from './pages/SendPage';
import { SettingsPage } from './pages/SettingsPage';
import { SignInPage } from './pages/SignInPage';
import { TeamPage } from './pages/TeamPage';
import { WalletPage } from './pages/WalletPage';
import { WebhooksPage } from './pages/WebhooksPage';

/** A page the role may not use is neither offered nor rendered. */
function gated(role: Role | null, to: string, page: ReactElement): ReactElement {
  return mayOpen(role, to) ? page : <StatusMessage kind="empty">Your role in this account cannot use this page.</StatusMessage>;
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
  const role = currentRole(session.data);
  return (
    <AppShell session={session.data} role={role}>
      {role ? (
        <Routes>
          <Route path="/" element={<OverviewPage />} />
          <Route path="/rewards" element={<RewardsPage />} />
          <Route path="/rewards/:id" element={<RewardDetailPage />} />
          <Route path="/send" element={gated(role, '/send', <SendPage />)} />
          <Route path="/catalog" element={<CatalogPage />} />
          <Route path="/wallet" element={<WalletPage />} />
          <Route path="/webhooks" element={<WebhooksPage />} />
          <Route path="/developers" element={gated(role, '/developers', <DevelopersPage />)} />
          <Route path="/team" element={gated(role, '/team', <TeamPage />)} />
          <Route path="/audit-log" element={gated(role, '/audit-log', <AuditLogPage />)} />
          <Route path="/settings" element={<SettingsPage />} />
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
