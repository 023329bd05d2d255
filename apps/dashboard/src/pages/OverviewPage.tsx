import { Link } from 'react-router';
import { useOverview } from '../api/account';
import { useRewards } from '../api/rewards';
import { RewardsTable } from '../components/RewardsTable';
import { StatusMessage } from '../components/StatusMessage';
import { formatCents } from '../format/money';

export function OverviewPage() {
  const overview = useOverview();
  const recent = useRewards({ page: 1, pageSize: 5 });

  return (
    <>
      <h1>Overview</h1>
      {overview.isPending && <StatusMessage kind="loading">Loading balances…</StatusMessage>}
      {overview.isError && <StatusMessage kind="error">{overview.error.message}</StatusMessage>}
      {overview.data && (
        <dl className="figures">
          <div>
            <dt>Available</dt>
            <dd>{formatCents(overview.data.wallet.availableCents, overview.data.wallet.currency)}</dd>
          </div>
          <div>
            <dt>Reserved</dt>
            <dd>{formatCents(overview.data.wallet.reservedCents, overview.data.wallet.currency)}</dd>
          </div>
          <div>
            <dt>Rewards sent</dt>
            <dd>{overview.data.stats.totalRewards}</dd>
          </div>
          <div>
            <dt>Active rewards</dt>
            <dd>{overview.data.stats.activeRewards}</dd>
          </div>
          <div>
            <dt>Issued in cards</dt>
            <dd>{formatCents(overview.data.stats.totalIssuedCents, overview.data.wallet.currency)}</dd>
          </div>
        </dl>
      )}
      <h2>Recent rewards</h2>
      {recent.isPending && <StatusMessage kind="loading">Loading rewards…</StatusMessage>}
      {recent.isError && <StatusMessage kind="error">{recent.error.message}</StatusMessage>}
      {recent.data && (recent.data.rewards.length ? <RewardsTable rewards={recent.data.rewards} /> : <StatusMessage kind="empty">No rewards yet.</StatusMessage>)}
      <p>
        <Link to="/rewards">All rewards</Link>
      </p>
    </>
  );
}
