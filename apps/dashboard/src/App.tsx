import { Navigate, Route, Routes } from 'react-router';
import { currentRole, useSession } from './api/session';
import { AppShell } from './components/AppShell';
import { StatusMessage } from './components/StatusMessage';
import { OverviewPage } from './pages/OverviewPage';
import { RewardsPage } from './pages/RewardsPage';
import { SignInPage } from './pages/SignInPage';

export function App() {
  const session = useSession();
  if (session.isPending) return <StatusMessage kind="loading">Loading…</StatusMessage>;
  if (session.isError) return <StatusMessage kind="error">The dashboard could not reach the service. Reload to try again.</StatusMessage>;
  if (!session.data) {
    return (
      <Routes>
        <Route path="/sign-in" element={<SignInPage />} />
        <Route path="*" element={<Navigate to="/sign-in" replace />} />
      </Routes>
    );
  }
  const role = currentRole(session.data);
  return (
    <AppShell session={session.data} role={role}>
      {role ? (
        <Routes>
          <Route path="/" element={<OverviewPage />} />
          <Route path="/rewards" element={<RewardsPage />} />
          <Route path="/sign-in" element={<Navigate to="/" replace />} />
          <Route path="*" element={<StatusMessage kind="empty">There is no such page.</StatusMessage>} />
        </Routes>
      ) : (
        <StatusMessage kind="empty">You are not a member of any account any more.</StatusMessage>
      )}
    </AppShell>
  );
}
