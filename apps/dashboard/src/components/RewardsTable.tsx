import { Link } from 'react-router';
import { EMAIL_STATUS_LABELS, type Reward } from '../api/rewards';
import { formatCents } from '../format/money';
import { ActionsMenu, type MenuAction } from './ActionsMenu';
import { DataTable } from './DataTable';
import { Time } from './Time';

/** How a status reads on its badge. */
const STATUS_LABELS: Record<Reward['status'], string> = {
  CREATED: 'Created',
  SENT: 'Sent',
  OPENED: 'Opened',
  PARTIALLY_REDEEMED: 'Partly redeemed',
  REDEEMED: 'Redeemed',
  CANCELED: 'Cancelled',
  EXPIRED: 'Expired',
};

/** A reward's status as a coloured badge; the words carry the meaning, the colour only helps. */
export function StatusBadge({ status }: { status: Reward['status'] }) {
  return <span className={`reward-status reward-status-${status.toLowerCase().replace(/_/g, '-')}`}>{STATUS_LABELS[status] ?? status}</span>;
}

/** Which rows are ticked, for the Rewards page's bulk actions. */
export interface RowSelection {
  selected: ReadonlySet<string>;
  toggle: (id: string) => void;
  toggleAll: (ids: string[], on: boolean) => void;
}

/** The id of a reward row's Actions button, to give focus back to after a dialog opened from its menu. */
export const rowActionsId = (reward: Pick<Reward, 'id'>) => `actions-${reward.id}`;

/**
 * Rewards as the Overview and the Rewards page list them, each linking to its page; with `selection`,
 * each row can be ticked; with `actions`, each row has an "Actions for the reward to …" menu of them.
 */
export function RewardsTable({
  rewards,
  caption,
  selection,
  actions,
}: {
  rewards: Reward[];
  caption?: string;
  selection?: RowSelection;
  actions?: (reward: Reward) => MenuAction[];
}) {
  const ids = rewards.map((r) => r.id);
  const allOn = selection !== undefined && ids.length > 0 && ids.every((id) => selection.selected.has(id));
  return (
    <DataTable
      rows={rewards}
      rowKey={(reward) => reward.id}
      caption={caption}
      columns={[
        selection !== undefined && {
          header: (
            <input
              type="checkbox"
              aria-label="Select every reward on this page"
              checked={allOn}
              onChange={(e) => selection.toggleAll(ids, e.target.checked)}
            />
          ),
          cell: (reward) => (
            <input
              type="checkbox"
              aria-label={`Select the reward to ${reward.recipientEmail}`}
              checked={selection.selected.has(reward.id)}
              onChange={() => selection.toggle(reward.id)}
            />
          ),
        },
        { header: 'Recipient', cell: (reward) => <Link to={`/rewards/${reward.id}`}>{reward.recipientEmail}</Link> },
        { header: 'Type', cell: (reward) => reward.type },
        { header: 'Status', cell: (reward) => <StatusBadge status={reward.status} /> },
        {
          header: 'E-mail',
          cell: (reward) => <span className={`email-status email-${reward.emailStatus.toLowerCase()}`}>{EMAIL_STATUS_LABELS[reward.emailStatus]}</span>,
        },
        { header: 'Value', cell: (reward) => formatCents(reward.faceValueCents, reward.currency) },
        { header: 'Remaining', cell: (reward) => formatCents(reward.remainingValueCents, reward.currency) },
        { header: 'External id', cell: (reward) => reward.externalId ?? '' },
        { header: 'Sent by', cell: (reward) => reward.createdBy?.label ?? reward.createdBy?.type.replace('_', ' ') ?? '' },
        { header: 'Created', cell: (reward) => <Time value={reward.createdAt} /> },
        actions !== undefined && {
          header: 'Actions',
          cell: (reward) => <ActionsMenu id={rowActionsId(reward)} name={`Actions for the reward to ${reward.recipientEmail}`} actions={actions(reward)} />,
        },
      ]}
    />
  );
}
