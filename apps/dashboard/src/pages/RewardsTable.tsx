import { Link } from 'react-router';
import type { components } from '@client/schema';
import { Time } from '../components/Time';
import { formatCents } from '../format/money';

type Reward = components['schemas']['RewardDto'];

export function RewardsTable({ rewards, caption }: { rewards: Reward[]; caption?: string }) {
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label="Table (scrolls sideways on narrow screens)">
      <table>
        {caption && <caption>{caption}</caption>}
        <thead>
          <tr>
            <th scope="col">Recipient</th>
            <th scope="col">Type</th>
            <th scope="col">Status</th>
            <th scope="col">Value</th>
            <th scope="col">Remaining</th>
            <th scope="col">External id</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {rewards.map((reward) => (
            <tr key={reward.id}>
              <td>
                <Link to={`/rewards/${reward.id}`}>{reward.recipientEmail}</Link>
              </td>
              <td>{reward.type}</td>
              <td>{reward.status}</td>
              <td>{formatCents(reward.faceValueCents, reward.currency)}</td>
              <td>{formatCents(reward.remainingValueCents, reward.currency)}</td>
              <td>{reward.externalId ?? ''}</td>
              <td>
                <Time value={reward.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
