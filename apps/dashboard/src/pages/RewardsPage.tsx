import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { unwrap, v1 } from '../api/http';
import type { components } from '@client/schema';
import { exportCsv } from '../api/export';
import { ExportButton } from '../components/ExportButton';
import { Pager } from '../components/Pager';
import { StatusMessage } from '../components/StatusMessage';
import { RewardsTable } from './RewardsTable';

const STATUSES = ['CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED', 'REDEEMED', 'EXPIRED', 'CANCELED'] as const;
type Status = (typeof STATUSES)[number];
const PAGE_SIZE = 100;
type Reward = components['schemas']['RewardDto'];

export function RewardsPage() {
  // Filters live in the address, so a filtered page can be bookmarked or shared.
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const status = (STATUSES as readonly string[]).includes(params.get('status') ?? '') ? (params.get('status') as Status) : undefined;
  const externalId = params.get('external_id') ?? undefined;

  const rewards = useQuery({
    queryKey: ['rewards', { page, pageSize: PAGE_SIZE, status, externalId }],
    queryFn: async () =>
      unwrap(await v1.GET('/v1/rewards', { params: { query: { page, page_size: PAGE_SIZE, status, external_id: externalId } } })),
    placeholderData: keepPreviousData,
  });

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
          update({ external_id: String(form.get('external_id') ?? '').trim() || undefined, page: undefined });
        }}
      >
        <label htmlFor="status">Status</label>
        <select id="status" value={status ?? ''} onChange={(e) => update({ status: e.target.value || undefined, page: undefined })}>
          <option value="">Any</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <label htmlFor="external_id">External id</label>
        <input id="external_id" name="external_id" defaultValue={externalId ?? ''} />
        <button type="submit">Search</button>
        <ExportButton
          label="Export CSV"
          run={(progress) =>
            exportCsv(
              'rewards.csv',
              ['id', 'type', 'status', 'recipient_email', 'value_cents', 'remaining_cents', 'currency', 'external_id', 'campaign', 'source', 'created_at'],
              (r: Reward) => [r.id, r.type, r.status, r.recipientEmail, r.faceValueCents, r.remainingValueCents, r.currency, r.externalId, r.campaign, r.source, r.createdAt],
              async (p) => {
                const answer = await unwrap(await v1.GET('/v1/rewards', { params: { query: { page: p, page_size: 100, status, external_id: externalId } } }));
                return { items: answer.rewards, total: answer.total };
              },
              progress,
            )
          }
        />
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
