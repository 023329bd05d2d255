import { Link } from 'react-router';
import { useDecideApproval, usePendingApprovals } from '../api/approvals';
import { currentRole, useSession } from '../api/session';
import { ConfirmButton } from '../components/Confirm';
import { DataTable } from '../components/DataTable';
import { FormError } from '../components/FormError';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';
import { formatCents } from '../format/money';

/**
 * Sends waiting for approval (docs/controls.md, Approvals): an admin or owner approves (it goes out
 * as any send) or rejects (its value returns to the wallet); never the person who sent it.
 */
export function ApprovalsPage() {
  const session = useSession();
  const pending = usePendingApprovals();
  const decide = useDecideApproval();
  const role = session.data ? currentRole(session.data) : null;
  const mayDecide = role === 'admin' || role === 'owner';
  const me = session.data?.user.id;
  return (
    <>
      <h1>Approvals</h1>
      <p>
        Sends at or above the approval threshold (Settings) wait here with their value held. Nothing reaches the recipient until an admin
        or owner other than the sender approves; a rejected send is cancelled and its value returns to the wallet. Sends left undecided for
        30 days are rejected.
      </p>
      {!mayDecide && <StatusMessage kind="empty">Only an admin or owner can approve or reject.</StatusMessage>}
      {pending.isPending && <StatusMessage kind="loading">Loading sends waiting for approval…</StatusMessage>}
      {pending.isError && <StatusMessage kind="error">{pending.error.message}</StatusMessage>}
      {pending.data && pending.data.length === 0 && <StatusMessage kind="empty">No sends are waiting for approval.</StatusMessage>}
      {pending.data && pending.data.length > 0 && (
        <DataTable
          caption="Sends waiting for approval"
          rows={pending.data}
          rowKey={(row) => row.reward.id}
          columns={[
            { header: 'Reward', cell: ({ reward }) => <Link to={`/rewards/${reward.id}`}>{reward.id}</Link> },
            { header: 'Value', cell: ({ reward }) => formatCents(reward.faceValueCents, reward.currency) },
            { header: 'Recipient', cell: ({ reward }) => reward.recipientEmail },
            { header: 'Sent by', cell: senderOf },
            { header: 'Created', cell: ({ reward }) => <Time value={reward.createdAt} /> },
            mayDecide && {
              header: 'Decision',
              cell: ({ reward, createdBy }) =>
                createdBy?.type === 'user' && createdBy.id === me ? (
                  'You sent it: another admin or owner decides'
                ) : (
                  <span className="actions">
                    <ConfirmButton
                      label="Approve"
                      question={`Send ${formatCents(reward.faceValueCents, reward.currency)} to ${reward.recipientEmail}?`}
                      disabled={decide.isPending}
                      onConfirm={() => decide.mutate({ id: reward.id, decision: 'approve' })}
                    />{' '}
                    <ConfirmButton
                      danger
                      label="Reject"
                      question="The send is cancelled and its value returns to the wallet."
                      disabled={decide.isPending}
                      onConfirm={() => decide.mutate({ id: reward.id, decision: 'reject' })}
                    />
                  </span>
                ),
            },
          ]}
        />
      )}
      {decide.isSuccess && (
        <p role="status">{decide.data.reward.approval?.status === 'APPROVED' ? 'Approved: the reward is on its way.' : 'Rejected: the value is back in the wallet.'}</p>
      )}
      <FormError error={decide.error} />
    </>
  );
}

type PendingApproval = NonNullable<ReturnType<typeof usePendingApprovals>['data']>[number];

function senderOf({ createdBy, reward }: PendingApproval): string {
  if (createdBy?.label) return createdBy.type === 'api_key' ? `API key “${createdBy.label}”` : createdBy.label;
  return reward.source === 'dashboard' ? 'Dashboard' : reward.source === 'oauth' ? 'Connected app' : 'API key';
}
