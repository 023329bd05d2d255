import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { exportCsv } from '../api/export';
import { canCancel, canResend, fetchRewardsForExport, REWARD_SORTS, REWARD_STATUSES, useBulkRewardAction, useRewards, type Reward } from '../api/rewards';
import { useHasScope } from '../api/session';
import { useAddressParams } from '../components/address-params';
import type { MenuAction } from '../components/ActionsMenu';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { DateRangeFields } from '../components/DateRangeFields';
import { ExportButton } from '../components/ExportButton';
import { Pager } from '../components/Pager';
import { download, toCsv } from '../format/csv';
import { formatCents } from '../format/money';
import { rowActionsId, RewardsTable } from '../components/RewardsTable';
import { StatusMessage } from '../components/StatusMessage';
import { reportLink } from './ReportsPage';

const PAGE_SIZE = 100;
const REWARD_TYPES = ['FIXED', 'CHOICE'] as const;

/** The columns of an export, the whole list's and the ticked rows'. */
const EXPORT_HEADER = ['id', 'type', 'status', 'recipient_email', 'value_cents', 'remaining_cents', 'currency', 'external_id', 'campaign', 'source', 'sent_by', 'created_at'];
const exportRow = (r: Reward) => [
  r.id,
  r.type,
  r.status,
  r.recipientEmail,
  r.faceValueCents,
  r.remainingValueCents,
  r.currency,
  r.externalId,
  r.campaign,
  r.source,
  r.createdBy?.label ?? r.createdBy?.id ?? '',
  r.createdAt,
];

export function RewardsPage() {
  // Filters live in the address, so a filtered page can be bookmarked or shared.
  const [params, update] = useAddressParams();
  const navigate = useNavigate();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const status = REWARD_STATUSES.find((s) => s === params.get('status'));
  const externalId = params.get('external_id') ?? undefined;
  const type = REWARD_TYPES.find((t) => t === params.get('type'));
  const campaign = params.get('campaign') ?? undefined;
  const currency = params.get('currency') ?? undefined;
  const from = params.get('from') ?? undefined;
  const to = params.get('to') ?? undefined;
  const recipient = params.get('recipient') ?? undefined;
  const sort = REWARD_SORTS.find((s) => s.value === params.get('sort'))?.value;
  const filters = { status, externalId, type, campaign, currency, from, to, recipient, sort };

  // Ticked rows, kept with the rewards themselves so an export or a confirmation can name them.
  const [selected, setSelected] = useState<Map<string, Reward>>(new Map());
  const [confirmCancel, setConfirmCancel] = useState(false);
  const bulk = useBulkRewardAction();
  // One row's Cancel or Resend, from its Actions menu; a cancel asks first (the reward being asked about).
  const writer = useHasScope('rewards:write');
  const rowAction = useBulkRewardAction();
  // Kept after the dialog closes, so focus can go back to that row's Actions button.
  const [cancelling, setCancelling] = useState<Reward | null>(null);
  const [askingCancel, setAskingCancel] = useState(false);
  const [acted, setActed] = useState<{ action: 'cancel' | 'resend'; reward: Reward } | null>(null);
  const runOne = (action: 'cancel' | 'resend', reward: Reward) => {
    setActed({ action, reward });
    rowAction.mutate({ action, ids: [reward.id] });
  };
  const rowActions = (reward: Reward): MenuAction[] => [
    { label: 'Open the reward', onSelect: () => void navigate(`/rewards/${reward.id}`) },
    {
      label: 'Resend e-mail',
      onSelect: () => runOne('resend', reward),
      disabled: rowAction.isPending || !canResend(reward),
      reason: canResend(reward) ? undefined : reward.status === 'CREATED' ? 'scheduled, not sent yet' : 'nothing left to use',
    },
    {
      label: 'Cancel reward…',
      onSelect: () => {
        setCancelling(reward);
        setAskingCancel(true);
      },
      disabled: rowAction.isPending || !canCancel(reward),
      reason: canCancel(reward) ? undefined : 'already redeemed, cancelled or expired',
      danger: true,
    },
  ];

  const rewards = useRewards({ page, pageSize: PAGE_SIZE, ...filters }, { keepPrevious: true });

  const pageRewards = rewards.data?.rewards ?? [];
  const selection = {
    selected: new Set(selected.keys()),
    toggle: (id: string) =>
      setSelected((current) => {
        const next = new Map(current);
        const reward = pageRewards.find((r) => r.id === id);
        if (next.has(id)) next.delete(id);
        else if (reward) next.set(id, reward);
        return next;
      }),
    toggleAll: (ids: string[], on: boolean) =>
      setSelected((current) => {
        const next = new Map(current);
        for (const reward of pageRewards) {
          if (!ids.includes(reward.id)) continue;
          if (on) next.set(reward.id, reward);
          else next.delete(reward.id);
        }
        return next;
      }),
  };
  const chosen = [...selected.values()];
  const cancelable = chosen.filter(canCancel);
  const resendable = chosen.filter(canResend);
  const run = (action: 'cancel' | 'resend', ids: string[]) => bulk.mutate({ action, ids }, { onSuccess: (outcome) => outcome.failed.length === 0 && setSelected(new Map()) });

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
          update({
            recipient: text('recipient'),
            external_id: text('external_id'),
            campaign: text('campaign'),
            currency: text('currency')?.toUpperCase(),
            page: undefined,
          });
        }}
      >
        <label htmlFor="recipient">Recipient</label>
        <input id="recipient" name="recipient" type="search" defaultValue={recipient ?? ''} maxLength={100} placeholder="E-mail or name" />
        <label htmlFor="sort">Sort by</label>
        <select id="sort" value={sort ?? '-createdAt'} onChange={(e) => update({ sort: e.target.value === '-createdAt' ? undefined : e.target.value, page: undefined })}>
          {REWARD_SORTS.map((s) => (
            <option key={s.value} value={s.value}>
              {s.label}
            </option>
          ))}
        </select>
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
            exportCsv('rewards.csv', EXPORT_HEADER, exportRow, (p) => fetchRewardsForExport(p, filters), progress)
          }
        />
        <Link to={reportLink('rewards', params)}>Report of these rewards…</Link>
      </form>
      {chosen.length > 0 && (
        <div className="bulk-actions" role="group" aria-label="Actions on the selected rewards">
          <span>{chosen.length} selected</span>
          <button type="button" className="secondary" disabled={bulk.isPending || cancelable.length === 0} onClick={() => setConfirmCancel(true)}>
            Cancel selected
          </button>
          <button type="button" className="secondary" disabled={bulk.isPending || resendable.length === 0} onClick={() => run('resend', resendable.map((r) => r.id))}>
            Resend selected
          </button>
          <button type="button" className="secondary" onClick={() => download('rewards-selected.csv', toCsv([EXPORT_HEADER, ...chosen.map(exportRow)]))}>
            Export selected
          </button>
          <button type="button" className="secondary" onClick={() => setSelected(new Map())}>
            Clear selection
          </button>
        </div>
      )}
      {bulk.isPending && <StatusMessage kind="loading">Working on the selected rewards…</StatusMessage>}
      {bulk.data && (
        <p role="status">
          {bulk.data.action === 'cancel' ? 'Cancelled' : 'Resent'} {bulk.data.done} of {bulk.data.done + bulk.data.failed.length}.
          {bulk.data.failed.length > 0 && ` Not done: ${bulk.data.failed.map((f) => `${f.id} (${f.message})`).join('; ')}`}
        </p>
      )}
      <ConfirmDialog
        open={confirmCancel}
        title={`Cancel ${cancelable.length} ${cancelable.length === 1 ? 'reward' : 'rewards'}?`}
        details={[
          { label: 'Rewards', value: cancelable.map((r) => r.recipientEmail).join(', ') },
          { label: 'Value returned', value: totals(cancelable) },
          ...(chosen.length > cancelable.length ? [{ label: 'Left as they are', value: `${chosen.length - cancelable.length} already redeemed, cancelled or expired` }] : []),
        ]}
        confirmLabel={`Cancel ${cancelable.length} ${cancelable.length === 1 ? 'reward' : 'rewards'}`}
        onConfirm={() => {
          setConfirmCancel(false);
          run('cancel', cancelable.map((r) => r.id));
        }}
        onCancel={() => setConfirmCancel(false)}
      />
      {rowAction.isPending && acted && (
        <StatusMessage kind="loading">{acted.action === 'cancel' ? 'Cancelling' : 'Resending'} the reward to {acted.reward.recipientEmail}…</StatusMessage>
      )}
      {rowAction.data && acted && (
        <p role="status">
          {rowAction.data.failed.length === 0
            ? `${acted.action === 'cancel' ? 'Cancelled' : 'Resent'} the reward to ${acted.reward.recipientEmail}.`
            : `Not ${acted.action === 'cancel' ? 'cancelled' : 'resent'}: ${rowAction.data.failed[0].message}`}
        </p>
      )}
      <ConfirmDialog
        open={askingCancel}
        title={`Cancel the reward to ${cancelling?.recipientEmail ?? ''}?`}
        details={
          cancelling
            ? [
                { label: 'Reward', value: `${cancelling.type}, ${formatCents(cancelling.faceValueCents, cancelling.currency)}` },
                { label: 'Value returned', value: formatCents(cancelling.remainingValueCents, cancelling.currency) },
              ]
            : []
        }
        confirmLabel="Cancel reward"
        focusAfter={cancelling ? rowActionsId(cancelling) : undefined}
        onConfirm={() => {
          if (cancelling) runOne('cancel', cancelling);
          setAskingCancel(false);
        }}
        onCancel={() => setAskingCancel(false)}
      />
      {rewards.isPending && <StatusMessage kind="loading">Loading rewards…</StatusMessage>}
      {rewards.isError && <StatusMessage kind="error">{rewards.error.message}</StatusMessage>}
      {rewards.data &&
        (rewards.data.rewards.length ? (
          <>
            <RewardsTable rewards={rewards.data.rewards} caption={`${rewards.data.total} rewards`} selection={selection} actions={writer ? rowActions : undefined} />
            <Pager page={page} total={rewards.data.total} pageSize={PAGE_SIZE} onPage={(p) => update({ page: String(p) })} />
          </>
        ) : (
          <StatusMessage kind="empty">No rewards match.</StatusMessage>
        ))}
    </>
  );
}

/** The remaining value of `rewards`, per currency. */
function totals(rewards: Reward[]): string {
  const sums = new Map<string, number>();
  for (const r of rewards) sums.set(r.currency, (sums.get(r.currency) ?? 0) + r.remainingValueCents);
  return [...sums].map(([currency, cents]) => formatCents(cents, currency)).join(' + ') || formatCents(0, 'USD');
}
