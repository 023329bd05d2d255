import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { invalidate, unwrap, v1 } from '../api/http';
import { mayWrite, useRole } from '../api/session';
import { ConfirmButton } from '../components/Confirm';
import { FormError } from '../components/FormError';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';
import { formatCents } from '../format/money';

const CANCELLABLE = ['CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED'];

export function RewardDetailPage() {
  const { id = '' } = useParams();
  const writer = mayWrite(useRole());
  const client = useQueryClient();
  const reward = useQuery({
    queryKey: ['reward', id],
    queryFn: async () => unwrap(await v1.GET('/v1/rewards/{id}', { params: { path: { id } } })),
  });
  // The reward's one redemption link (the create response's, the one every e-mail carries): only
  // roles that may write rewards may read it back, as the API allows it only with rewards:write.
  const link = useQuery({
    queryKey: ['reward-link', id],
    enabled: writer,
    queryFn: async () => {
      const full = await unwrap(await v1.GET('/v1/rewards/{id}', { params: { path: { id }, query: { include_credentials: true } } }));
      return full.redemptionUrl ?? null;
    },
  });
  const refresh = () => invalidate(client, 'reward', 'rewards', 'overview', 'wallet');
  const cancel = useMutation({
    mutationFn: async () => unwrap(await v1.POST('/v1/rewards/{id}/cancel', { params: { path: { id } } })),
    onSuccess: refresh,
  });
  const resend = useMutation({
    mutationFn: async () => unwrap(await v1.POST('/v1/rewards/{id}/resend', { params: { path: { id } } })),
    onSuccess: refresh,
  });

  if (reward.isPending) return <StatusMessage kind="loading">Loading the reward…</StatusMessage>;
  if (reward.isError) return <StatusMessage kind="error">{reward.error.message}</StatusMessage>;
  const r = reward.data.reward;
  return (
    <>
      <p>
        <Link to="/rewards">← Rewards</Link>
      </p>
      <h1>
        {r.type} reward to {r.recipientFirstName} ({r.recipientEmail})
      </h1>
      <dl className="facts">
        <dt>Status</dt>
        <dd>{r.status}</dd>
        <dt>Value</dt>
        <dd>{formatCents(r.faceValueCents, r.currency)}</dd>
        <dt>Remaining</dt>
        <dd>{formatCents(r.remainingValueCents, r.currency)}</dd>
        <dt>External id</dt>
        <dd>{r.externalId ?? '—'}</dd>
        <dt>Campaign</dt>
        <dd>{r.campaign ?? '—'}</dd>
        <dt>Sent</dt>
        <dd>
          <Time value={r.sentAt} />
        </dd>
        <dt>Expires</dt>
        <dd>
          <Time value={r.expiresAt} />
        </dd>
        <dt>Id</dt>
        <dd>
          <code>{r.id}</code>
        </dd>
        {writer && (
          <>
            <dt>Redemption link</dt>
            <dd>{link.data ? <a href={link.data}>{link.data}</a> : link.isError ? 'Not available' : '…'}</dd>
          </>
        )}
      </dl>
      {writer && (
        <div className="actions">
          <ConfirmButton label="Resend" question="E-mail the recipient again?" onConfirm={() => resend.mutate()} disabled={resend.isPending} />
          {CANCELLABLE.includes(r.status) && (
            <ConfirmButton
              danger
              label="Cancel reward"
              question="The value not yet turned into cards returns to the wallet."
              onConfirm={() => cancel.mutate()}
              disabled={cancel.isPending}
            />
          )}
          {resend.isSuccess && <span role="status">The e-mail is on its way again.</span>}
          <FormError error={cancel.error ?? resend.error} />
        </div>
      )}
      <h2>Cards</h2>
      {r.issuedCards.length === 0 ? (
        <StatusMessage kind="empty">No cards yet.</StatusMessage>
      ) : (
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Table (scrolls sideways on narrow screens)">
          <table>
            <thead>
              <tr>
                <th scope="col">Card</th>
                <th scope="col">Amount</th>
                <th scope="col">Status</th>
                <th scope="col">Credentials</th>
                <th scope="col">Issued</th>
              </tr>
            </thead>
            <tbody>
              {r.issuedCards.map((card) => (
                <tr key={card.id}>
                  <td>{card.rewardName}</td>
                  <td>{formatCents(card.amountCents, card.currency)}</td>
                  <td>{card.status}</td>
                  <td>
                    {card.credentials.map((c) => (
                      <div key={c.label}>
                        {c.label}: <code>{c.value}</code>
                      </div>
                    ))}
                  </td>
                  <td>
                    <Time value={card.issuedAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>Timeline</h2>
      <ol className="timeline">
        {r.events.map((event) => (
          <li key={event.id}>
            <Time value={event.createdAt} /> <strong>{event.type}</strong>
          </li>
        ))}
      </ol>
    </>
  );
}
