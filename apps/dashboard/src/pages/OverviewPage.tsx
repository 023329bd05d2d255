import { Link } from 'react-router';
import { useOverview } from '../api/account';
import { useRewards } from '../api/rewards';
import { Balances } from '../components/Balances';
import { RewardsTable } from '../components/RewardsTable';
import { StatusMessage } from '../components/StatusMessage';

export function OverviewPage() {
  const overview = useOverview();
  const recent = useRewards({ page: 1, pageSize: 5 });

  return (
    <>
      <h1>Overview</h1>
      {overview.isPending && <StatusMessage kind="loading">Loading balances…</StatusMessage>}
      {overview.isError && <StatusMessage kind="error">{overview.error.message}</StatusMessage>}
      {overview.data && (
        <>
          <dl className="figures">
            <div>
              <dt>Rewards sent</dt>
              <dd>{overview.data.stats.totalRewards}</dd>
            </div>
            <div>
              <dt>Active rewards</dt>
              <dd>{overview.data.stats.activeRewards}</dd>
            </div>
          </dl>
          <h2>Balances</h2>
          <Balances wallets={overview.data.wallets} stats={overview.data.statsByCurrency} />
        </>
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
