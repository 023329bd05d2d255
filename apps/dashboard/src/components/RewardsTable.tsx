import { Link } from 'react-router';
import { EMAIL_STATUS_LABELS, type Reward } from '../api/rewards';
import { formatCents } from '../format/money';
import { DataTable } from './DataTable';
import { Time } from './Time';

/** Rewards as the Overview and the Rewards page list them, each linking to its page. */
export function RewardsTable({ rewards, caption }: { rewards: Reward[]; caption?: string }) {
  return (
    <DataTable
      rows={rewards}
      rowKey={(reward) => reward.id}
      caption={caption}
      columns={[
        { header: 'Recipient', cell: (reward) => <Link to={`/rewards/${reward.id}`}>{reward.recipientEmail}</Link> },
        { header: 'Type', cell: (reward) => reward.type },
        { header: 'Status', cell: (reward) => reward.status },
        {
          header: 'E-mail',
          cell: (reward) => <span className={`email-status email-${reward.emailStatus.toLowerCase()}`}>{EMAIL_STATUS_LABELS[reward.emailStatus]}</span>,
        },
        { header: 'Value', cell: (reward) => formatCents(reward.faceValueCents, reward.currency) },
        { header: 'Remaining', cell: (reward) => formatCents(reward.remainingValueCents, reward.currency) },
        { header: 'External id', cell: (reward) => reward.externalId ?? '' },
        { header: 'Created', cell: (reward) => <Time value={reward.createdAt} /> },
      ]}
    />
  );
}
