import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { unwrap, v1 } from '../api/http';
import { StatusMessage } from '../components/StatusMessage';
import { formatCents } from '../format/money';
import { RewardsTable } from './RewardsTable';

export function OverviewPage() {
  const overview = useQuery({
    queryKey: ['overview'],
    queryFn: async () => unwrap(await v1.GET('/v1/account/overview')),
  });
  const recent = useQuery({
    queryKey: ['rewards', { page: 1, pageSize: 5 }],
    queryFn: async () => unwrap(await v1.GET('/v1/rewards', { params: { query: { page: 1, page_size: 5 } } })),
  });

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
