import { useState } from 'react';
import { Link } from 'react-router';
import { useOverview, useSentPerDay } from '../api/account';
import { useRewards } from '../api/rewards';
import { useHasScope } from '../api/session';
import { Balances } from '../components/Balances';
import { DataTable } from '../components/DataTable';
import { SentChart } from '../components/SentChart';
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
      {overview.data && overview.data.stats.totalRewards === 0 && <NextSteps />}
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
      <SentPerDay />
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

/** A new account's first steps, each offered only to those who may take it. */
function NextSteps() {
  const mayTopUp = useHasScope('wallet:write');
  const maySend = useHasScope('rewards:write');
  const mayMakeKeys = useHasScope('api_keys:manage');
  if (!mayTopUp && !maySend && !mayMakeKeys) return null;
  return (
    <section aria-labelledby="next-steps" className="next-steps">
      <h2 id="next-steps">Get started</h2>
      <ol>
        {mayTopUp && (
          <li>
            <Link to="/wallet">Top up the wallet</Link>: rewards are paid from it.
          </li>
        )}
        {maySend && (
          <li>
            <Link to="/send">Send a first reward</Link>: one gift card, or the recipient's choice.
          </li>
        )}
        {mayMakeKeys && (
          <li>
            <Link to="/developers">Make an API key</Link> to send from your own systems.
          </li>
        )}
      </ol>
    </section>
  );
}

/**
 * Value sent per day over the last 30 or 90 days, one chart per currency held, each with the same
 * figures as a table (docs/dashboard.md, Overview chart).
 */
function SentPerDay() {
  const [days, setDays] = useState<30 | 90>(30);
  const sent = useSentPerDay(days);
  return (
    <section aria-labelledby="sent-heading">
      <h2 id="sent-heading">Value sent per day</h2>
      <div className="filters" role="group" aria-label="Period">
        {([30, 90] as const).map((n) => (
          <button key={n} type="button" aria-pressed={days === n} onClick={() => setDays(n)}>
            Last {n} days
          </button>
        ))}
      </div>
      {sent.isPending && <StatusMessage kind="loading">Loading the chart…</StatusMessage>}
      {sent.isError && <StatusMessage kind="error">{sent.error.message}</StatusMessage>}
      {sent.data?.series.map((series) => (
        <figure key={series.currency} className="sent-figure">
          <figcaption>
            {series.currency}: {formatCents(series.days.reduce((sum, d) => sum + d.sentCents, 0), series.currency)} in {days} days
          </figcaption>
          <SentChart currency={series.currency} days={series.days} />
          <details>
            <summary>{series.currency} per day as a table</summary>
            <DataTable
              caption={`Value sent per day in ${series.currency}, last ${days} days (UTC)`}
              rows={[...series.days].reverse()}
              rowKey={(d) => d.date}
              columns={[
                { header: 'Day (UTC)', cell: (d) => d.date },
                { header: 'Sent', cell: (d) => formatCents(d.sentCents, series.currency) },
              ]}
            />
          </details>
        </figure>
      ))}
    </section>
  );
}
