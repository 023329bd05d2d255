import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import {
  addressCorrectable,
  deliveryFailure,
  EMAIL_STATUS_LABELS,
  LANGUAGE_NAMES,
  SMS_STATUS_LABELS,
  canCancel,
  canResend,
  useCancelReward,
  useCorrectRecipient,
  useResendReward,
  useReward,
  useRewardLedger,
  useRewardLink,
  type Reward,
} from '../api/rewards';
import { useHasScope } from '../api/session';
import { ConfirmButton } from '../components/Confirm';
import { DataTable } from '../components/DataTable';
import { Field } from '../components/Field';
import { fieldIssue, FormError } from '../components/FormError';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';
import { formatCents } from '../format/money';

export function RewardDetailPage() {
  const { id = '' } = useParams();
  const writer = useHasScope('rewards:write');
  const canSeeMoney = useHasScope('wallet:read');
  const reward = useReward(id);
  const link = useRewardLink(id, writer);
  const cancel = useCancelReward(id);
  const resend = useResendReward(id);

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
        {r.approval && (
          <>
            <dt>Approval</dt>
            <dd>
              {r.approval.status === 'PENDING' ? (
                'Waiting for an admin or owner (Approvals page)'
              ) : (
                <>
                  {r.approval.status === 'APPROVED' ? 'Approved' : 'Rejected'} by {r.approval.decidedBy?.label ?? 'the scheduler (30 days undecided)'}{' '}
                  <Time value={r.approval.decidedAt} />
                </>
              )}
            </dd>
          </>
        )}
        <dt>E-mail</dt>
        <dd>
          <span className={`email-status email-${r.emailStatus.toLowerCase()}`}>{EMAIL_STATUS_LABELS[r.emailStatus]}</span>
          {deliveryFailure(r) && <> — the recipient's mail server answered: <q>{deliveryFailure(r)}</q></>}
        </dd>
        <dt>Text message</dt>
        <dd>
          {r.recipientPhone && r.smsStatus ? (
            <>
              <span className={`email-status email-${r.smsStatus === 'SENT' ? 'delivered' : r.smsStatus.toLowerCase()}`}>{SMS_STATUS_LABELS[r.smsStatus]}</span> to{' '}
              {r.recipientPhone}
              {deliveryFailure(r, 'sms') && <> — the SMS provider answered: <q>{deliveryFailure(r, 'sms')}</q></>}
            </>
          ) : (
            'None (no phone given)'
          )}
        </dd>
        <dt>Language</dt>
        <dd>{r.recipientLanguage ? LANGUAGE_NAMES[r.recipientLanguage] : 'Not set (English e-mail; the page follows the browser)'}</dd>
        <dt>Value</dt>
        <dd>{formatCents(r.faceValueCents, r.currency)}</dd>
        <dt>Remaining</dt>
        <dd>{formatCents(r.remainingValueCents, r.currency)}</dd>
        <dt>External id</dt>
        <dd>{r.externalId ?? '—'}</dd>
        <dt>Campaign</dt>
        <dd>{r.campaign ?? '—'}</dd>
        {r.deliverAt && (
          <>
            <dt>Scheduled delivery</dt>
            <dd>
              <Time value={r.deliverAt} /> ({r.deliverAt.slice(0, 16).replace('T', ' ')} UTC)
              {r.status === 'CREATED' ? ': not delivered yet; cancelling now returns the whole value' : ''}
            </dd>
          </>
        )}
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
            <dd>
              {link.data ? <a href={link.data}>{link.data}</a> : link.isError ? 'Not available' : '…'}
              <br />
              <small>Opening the link counts as the recipient opening it; the preview below does not.</small>
            </dd>
          </>
        )}
      </dl>
      <p>
        {/* The session-authorised preview (docs/redemption.md, Preview): the reward stays as it is. */}
        <a href={`/dashboard/api/rewards/${encodeURIComponent(r.id)}/recipient-preview`} target="_blank" rel="noopener">
          Preview the recipient page<span className="visually-hidden"> (opens in a new tab)</span>
        </a>
      </p>
      {writer && (
        <div className="actions">
          {/* A canceled or expired reward has nothing left to use: not offered here (the API still allows it, docs/dashboard.md). */}
          {/* A scheduled send not delivered yet has nothing to send again (the API answers 422). */}
          {canResend(r) && (
            <ConfirmButton label="Resend" question="E-mail the recipient again?" onConfirm={() => resend.mutate()} disabled={resend.isPending} />
          )}
          {canCancel(r) && (
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
      {writer && addressCorrectable(r) && <CorrectAddress reward={r} />}
      <h2>Cards</h2>
      {r.issuedCards.length === 0 ? (
        <StatusMessage kind="empty">No cards yet.</StatusMessage>
      ) : (
        <DataTable
          label="Cards"
          rows={r.issuedCards}
          rowKey={(card) => card.id}
          columns={[
            { header: 'Card', cell: (card) => card.rewardName },
            { header: 'Amount', cell: (card) => formatCents(card.amountCents, card.currency) },
            { header: 'Status', cell: (card) => card.status },
            {
              header: 'Credentials',
              cell: (card) =>
                card.credentials.map((c) => (
                  <div key={c.label}>
                    {c.label}: <code>{c.value}</code>
                  </div>
                )),
            },
            { header: 'Issued', cell: (card) => <Time value={card.issuedAt} /> },
          ]}
        />
      )}
      {canSeeMoney && <MoneyTrail id={r.id} currency={r.currency} />}
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

/**
 * Corrects a mistyped address (docs/delivery.md, Correcting the address): offered while the reward is
 * not opened and has value left; the e-mail goes again to the new address with the same link.
 */
function CorrectAddress({ reward }: { reward: Reward }) {
  const correct = useCorrectRecipient(reward.id);
  const [email, setEmail] = useState(reward.recipientEmail);
  // A scheduled send not delivered yet: the address is changed, and the e-mail goes to it at the delivery time.
  const scheduled = reward.status === 'CREATED' && reward.deliverAt !== null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    correct.mutate(email.trim());
  };
  return (
    <section aria-labelledby="correct-address">
      <h2 id="correct-address">Correct the address</h2>
      <p>
        {scheduled
          ? 'Nothing has been sent yet: a corrected address gets the e-mail at the scheduled time.'
          : reward.emailStatus === 'FAILED'
          ? 'The e-mail could not be delivered. Fix the address and it is sent again, with the same link.'
          : 'Until the recipient opens the reward, a wrong address can be fixed; the e-mail is sent again, with the same link.'}
      </p>
      <form onSubmit={submit} className="inline-form" aria-label="Correct the recipient's address">
        <Field
          label="Recipient's e-mail"
          type="email"
          name="email"
          autoComplete="off"
          required
          maxLength={254}
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          {...fieldIssue(correct.error, 'recipient.email')}
        />
        <button type="submit" disabled={correct.isPending || email.trim() === reward.recipientEmail}>
          {scheduled ? 'Save' : 'Save and send again'}
        </button>
      </form>
      {correct.isSuccess && (
        <p role="status">
          {correct.data.reward.status === 'CREATED' && correct.data.reward.deliverAt
            ? `Saved: the e-mail goes to ${correct.data.reward.recipientEmail} at the scheduled time.`
            : `Sent again to ${correct.data.reward.recipientEmail}.`}
        </p>
      )}
      <FormError error={correct.error} labels={{ 'recipient.email': "Recipient's e-mail" }} />
    </section>
  );
}

/**
 * The reward's money trail (docs/dashboard.md, Reward detail): every wallet movement of the reward
 * and its cards, oldest first, and the totals that account for its value.
 */
function MoneyTrail({ id, currency }: { id: string; currency: string }) {
  const ledger = useRewardLedger(id);
  return (
    <section aria-labelledby="money-trail">
      <h2 id="money-trail">Money trail</h2>
      {ledger.isPending && <StatusMessage kind="loading">Loading the money trail…</StatusMessage>}
      {ledger.isError && <StatusMessage kind="error">{ledger.error.message}</StatusMessage>}
      {ledger.data && (
        <>
          <dl className="money-totals">
            <dt>Held</dt>
            <dd>{formatCents(ledger.data.heldCents, currency)}</dd>
            <dt>Spent on cards</dt>
            <dd>{formatCents(ledger.data.capturedCents, currency)}</dd>
            <dt>Returned</dt>
            <dd>{formatCents(ledger.data.releasedCents, currency)}</dd>
            {ledger.data.convertedCents > 0 && (
              <>
                <dt>Converted in</dt>
                <dd>{formatCents(ledger.data.convertedCents, currency)}</dd>
              </>
            )}
          </dl>
          <DataTable
            label="Money trail"
            caption="Wallet movements of this reward and its cards, oldest first"
            rows={ledger.data.transactions}
            rowKey={(tx) => tx.id}
            columns={[
              { header: 'When', cell: (tx) => <Time value={tx.createdAt} /> },
              { header: 'Kind', cell: (tx) => tx.kind },
              { header: 'Available', cell: (tx) => formatCents(tx.availableDeltaCents, tx.currency) },
              { header: 'Reserved', cell: (tx) => formatCents(tx.reservedDeltaCents, tx.currency) },
              { header: 'Concerns', cell: (tx) => <code>{tx.relatedId}</code> },
            ]}
          />
        </>
      )}
    </section>
  );
}
