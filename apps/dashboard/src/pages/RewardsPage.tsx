import { Link, useSearchParams } from 'react-router';
import { exportCsv } from '../api/export';
import { fetchRewardsForExport, REWARD_STATUSES, useRewards, type Reward } from '../api/rewards';
import { DateRangeFields } from '../components/DateRangeFields';
import { ExportButton } from '../components/ExportButton';
import { Pager } from '../components/Pager';
import { RewardsTable } from '../components/RewardsTable';
import { StatusMessage } from '../components/StatusMessage';
import { reportLink } from './ReportsPage';

const PAGE_SIZE = 100;
const REWARD_TYPES = ['FIXED', 'CHOICE'] as const;

export function RewardsPage() {
  // Filters live in the address, so a filtered page can be bookmarked or shared.
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const status = REWARD_STATUSES.find((s) => s === params.get('status'));
  const externalId = params.get('external_id') ?? undefined;
  const type = REWARD_TYPES.find((t) => t === params.get('type'));
  const campaign = params.get('campaign') ?? undefined;
  const currency = params.get('currency') ?? undefined;
  const from = params.get('from') ?? undefined;
  const to = params.get('to') ?? undefined;
  const filters = { status, externalId, type, campaign, currency, from, to };

  const rewards = useRewards({ page, pageSize: PAGE_SIZE, ...filters }, { keepPrevious: true });

  const update = (changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams(params);
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    setParams(next);
  };

  return (
    <>
      <h1>Rewards</h1>
      <form
        className="filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          const text = (name: string) => String(form.get(name) ?? '').trim() || undefined;
          update({ external_id: text('external_id'), campaign: text('campaign'), currency: text('currency')?.toUpperCase(), page: undefined });
        }}
      >
        <label htmlFor="status">Status</label>
        <select id="status" value={status ?? ''} onChange={(e) => update({ status: e.target.value || undefined, page: undefined })}>
          <option value="">Any</option>
          {REWARD_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <label htmlFor="type">Type</label>
        <select id="type" value={type ?? ''} onChange={(e) => update({ type: e.target.value || undefined, page: undefined })}>
          <option value="">Any</option>
          {REWARD_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
        <DateRangeFields from={from} to={to} onChange={(range) => update({ ...range, page: undefined })} />
        <label htmlFor="external_id">External id</label>
        <input id="external_id" name="external_id" defaultValue={externalId ?? ''} />
        <label htmlFor="campaign">Campaign</label>
        <input id="campaign" name="campaign" defaultValue={campaign ?? ''} />
        <label htmlFor="currency">Currency</label>
        <input id="currency" name="currency" defaultValue={currency ?? ''} maxLength={3} size={4} autoCapitalize="characters" />
        <button type="submit">Search</button>
        <ExportButton
          label="Export CSV"
          run={(progress) =>
            exportCsv(
              'rewards.csv',
              ['id', 'type', 'status', 'recipient_email', 'value_cents', 'remaining_cents', 'currency', 'external_id', 'campaign', 'source', 'created_at'],
              (r: Reward) => [r.id, r.type, r.status, r.recipientEmail, r.faceValueCents, r.remainingValueCents, r.currency, r.externalId, r.campaign, r.source, r.createdAt],
              (p) => fetchRewardsForExport(p, filters),
              progress,
            )
          }
        />
        <Link to={reportLink('rewards', params)}>Report of these rewards…</Link>
      </form>
      {rewards.isPending && <StatusMessage kind="loading">Loading rewards…</StatusMessage>}
      {rewards.isError && <StatusMessage kind="error">{rewards.error.message}</StatusMessage>}
      {rewards.data &&
        (rewards.data.rewards.length ? (
          <>
            <RewardsTable rewards={rewards.data.rewards} caption={`${rewards.data.total} rewards`} />
            <Pager page={page} total={rewards.data.total} pageSize={PAGE_SIZE} onPage={(p) => update({ page: String(p) })} />
          </>
        ) : (
          <StatusMessage kind="empty">No rewards match.</StatusMessage>
        ))}
    </>
  );
}
