import { useId, useState, type FormEvent } from 'react';
import { useHasScope } from '../api/session';
import {
  useCreateEndpoint,
  useDeliveries,
  useDelivery,
  useEndpointActions,
  useReplay,
  useRetryDelivery,
  useWebhookEndpoints,
  WEBHOOK_EVENT_TYPES,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEventType,
} from '../api/webhooks';
import { ActionsMenu } from '../components/ActionsMenu';
import { CheckboxList } from '../components/CheckboxList';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { DataTable } from '../components/DataTable';
import { Field } from '../components/Field';
import { fieldIssue, FormError, issueOf, type FieldLabels } from '../components/FormError';
import { SecretOnce } from '../components/SecretOnce';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';

export function WebhooksPage() {
  const writer = useHasScope('webhooks:write');
  const endpoints = useWebhookEndpoints();
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);

  return (
    <>
      <h1>Webhooks</h1>
      {secret && <SecretOnce label={secret.label} value={secret.value} onDone={() => setSecret(null)} />}
      {writer && <CreateEndpoint onSecret={(value) => setSecret({ label: 'Signing secret of the new endpoint', value })} />}
      <h2>Endpoints</h2>
      {endpoints.isPending && <StatusMessage kind="loading">Loading endpoints…</StatusMessage>}
      {endpoints.isError && <StatusMessage kind="error">{endpoints.error.message}</StatusMessage>}
      {endpoints.data && endpoints.data.webhookEndpoints.length === 0 && <StatusMessage kind="empty">No endpoints yet.</StatusMessage>}
      <ul className="cards">
        {endpoints.data?.webhookEndpoints.map((endpoint) => (
          <EndpointCard key={endpoint.id} endpoint={endpoint} writer={writer} onSecret={(value) => setSecret({ label: `New signing secret of ${endpoint.url}`, value })} />
        ))}
      </ul>
    </>
  );
}

function CreateEndpoint({ onSecret }: { onSecret: (secret: string) => void }) {
  const [events, setEvents] = useState<WebhookEventType[]>([]);
  const create = useCreateEndpoint((secret) => {
    onSecret(secret);
    setEvents([]);
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    create.mutate({ url: String(form.get('url') ?? '').trim(), events, description: String(form.get('description') ?? '').trim() || undefined });
  };
  return (
    <form onSubmit={submit} className="stack" aria-label="Add endpoint">
      <h2>Add an endpoint</h2>
      <Field label={ENDPOINT_LABELS.url} name="url" type="url" required placeholder="https://example.com/webhooks" {...fieldIssue(create.error, 'url')} />
      <Field label={ENDPOINT_LABELS.description} name="description" {...fieldIssue(create.error, 'description')} />
      <CheckboxList
        legend="Events (none ticked: every event)"
        filterLabel="Filter events"
        options={WEBHOOK_EVENT_TYPES.map((type) => ({ value: type, label: type, searchText: type }))}
        selected={events}
        onChange={(values) => setEvents(values as WebhookEventType[])}
        after={issueOf(create.error, 'events') && <small className="field-error">{issueOf(create.error, 'events')}</small>}
      />
      <FormError error={create.error} labels={ENDPOINT_LABELS} />
      <button type="submit" disabled={create.isPending}>
        Add endpoint
      </button>
    </form>
  );
}

/** The endpoint form's fields as the merchant sees them, by the API path the server names them with. */
const ENDPOINT_LABELS: FieldLabels = { url: 'URL', description: 'Description (optional)', events: 'Events' };

/**
 * An endpoint: its state, its actions in one "Actions for <url>" menu (docs/dashboard.md, Widgets
 * from kept libraries), and the two parts it can show under it, the replay form and the deliveries
 * (disclosure buttons, kept beside the menu since they show rather than do). Rotating the secret and
 * deleting ask first, in a dialog; focus goes back to the menu's button (to the page after a delete).
 */
function EndpointCard({ endpoint, writer, onSecret }: { endpoint: WebhookEndpoint; writer: boolean; onSecret: (secret: string) => void }) {
  const [showDeliveries, setShowDeliveries] = useState(false);
  const [showReplay, setShowReplay] = useState(false);
  const [asking, setAsking] = useState<'rotate' | 'delete' | null>(null);
  const [deleting, setDeleting] = useState(false);
  const { toggle, rotate, test, remove } = useEndpointActions(endpoint, onSecret);
  const base = useId();
  const menuId = `${base}-actions`;
  return (
    <li>
      <h3>{endpoint.url}</h3>
      <p>
        {endpoint.active ? 'Active' : `Paused${endpoint.pausedReason ? ` (${endpoint.pausedReason})` : ''}`} · {endpoint.events.join(', ')}
        {endpoint.previousSecretExpiresAt && (
          <>
            {' '}
            · previous secret valid until <Time value={endpoint.previousSecretExpiresAt} />
          </>
        )}
      </p>
      <div className="actions">
        {writer && (
          <>
            <ActionsMenu
              id={menuId}
              name={`Actions for ${endpoint.url}`}
              actions={[
                { label: endpoint.active ? 'Pause' : 'Resume', onSelect: () => toggle.mutate(), disabled: toggle.isPending },
                { label: 'Send test', onSelect: () => test.mutate(), disabled: test.isPending || !endpoint.active, reason: endpoint.active ? undefined : 'paused' },
                { label: 'Rotate secret…', onSelect: () => setAsking('rotate'), disabled: rotate.isPending },
                { label: 'Delete endpoint…', onSelect: () => setAsking('delete'), disabled: remove.isPending, danger: true },
              ]}
            />
            <button type="button" className="secondary" aria-expanded={showReplay} onClick={() => setShowReplay((v) => !v)}>
              Replay a time range
            </button>
          </>
        )}
        <button type="button" className="secondary" aria-expanded={showDeliveries} onClick={() => setShowDeliveries((v) => !v)}>
          {showDeliveries ? 'Hide deliveries' : 'Show deliveries'}
        </button>
      </div>
      {writer && !endpoint.active && <p>Paused: resume the endpoint to send it a test event or retry its deliveries.</p>}
      {test.isSuccess && <p role="status">Test event queued.</p>}
      {toggle.isSuccess && <p role="status">{endpoint.active ? 'Endpoint active.' : 'Endpoint paused.'}</p>}
      <FormError error={toggle.error ?? rotate.error ?? test.error ?? remove.error} />
      {writer && showReplay && <ReplayForm endpoint={endpoint} />}
      {showDeliveries && <Deliveries endpoint={endpoint} writer={writer} />}
      <ConfirmDialog
        open={asking === 'rotate'}
        title="Rotate the signing secret?"
        details={[
          { label: 'Endpoint', value: endpoint.url },
          { label: 'Current secret', value: 'keeps working beside the new one for 24 hours, so your servers can switch' },
        ]}
        confirmLabel="Rotate secret"
        focusAfter={menuId}
        onConfirm={() => {
          setAsking(null);
          rotate.mutate();
        }}
        onCancel={() => setAsking(null)}
      />
      <ConfirmDialog
        open={asking === 'delete'}
        title="Delete this endpoint?"
        details={[
          { label: 'Endpoint', value: endpoint.url },
          { label: 'Deliveries', value: 'stop at once' },
        ]}
        confirmLabel="Delete endpoint"
        focusAfter={deleting ? 'main' : menuId}
        onConfirm={() => {
          setDeleting(true);
          setAsking(null);
          remove.mutate(undefined, { onError: () => setDeleting(false) });
        }}
        onCancel={() => setAsking(null)}
      />
    </li>
  );
}

/** UTC day `days` before today, as a date input holds it. */
function utcDay(daysAgo: number): string {
  return new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
}

/**
 * Delivers the events of a range of days again to this endpoint, with their original ids
 * (docs/webhooks.md, Replay): the API keeps 30 days, so the form offers no earlier day.
 */
function ReplayForm({ endpoint }: { endpoint: WebhookEndpoint }) {
  const [from, setFrom] = useState(utcDay(1));
  const [to, setTo] = useState(utcDay(0));
  const replay = useReplay(endpoint.id);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    replay.mutate({ from, to });
  };
  const id = (name: string) => `replay-${name}-${endpoint.id}`;
  return (
    <form onSubmit={submit} className="stack" aria-label={`Replay a time range to ${endpoint.url}`}>
      <fieldset className="date-range">
        <legend>Replay events created (UTC days, both included)</legend>
        <label htmlFor={id('from')}>From</label>
        <input id={id('from')} type="date" required value={from} min={utcDay(29)} max={to} onChange={(e) => setFrom(e.target.value)} />
        <label htmlFor={id('to')}>To</label>
        <input id={id('to')} type="date" required value={to} min={from} onChange={(e) => setTo(e.target.value)} />
      </fieldset>
      <p>Every event of these days that the endpoint subscribes to is sent again, with its original id.</p>
      <FormError error={replay.error} />
      <button type="submit" disabled={replay.isPending || !endpoint.active}>
        Replay
      </button>
      {!endpoint.active && <p>Resume the endpoint to replay events to it.</p>}
      {replay.data && (
        <p role="status">
          {replay.data.replay.eventCount === 1 ? '1 event' : `${replay.data.replay.eventCount} events`} will be delivered again.
        </p>
      )}
    </form>
  );
}

/** Why a delivery cannot be retried now, or null when it can (docs/webhooks.md, Retries). */
function retryBlocked(delivery: WebhookDelivery, endpoint: WebhookEndpoint): string | null {
  if (delivery.status === 'PENDING') return 'Still pending: its next attempt is already scheduled.';
  if (!endpoint.active) return 'The endpoint is paused: resume it to retry.';
  return null;
}

function Deliveries({ endpoint, writer }: { endpoint: WebhookEndpoint; writer: boolean }) {
  const deliveries = useDeliveries(endpoint.id);
  const retry = useRetryDelivery(endpoint.id);
  const [openId, setOpenId] = useState<string | null>(null);
  const base = useId();
  if (deliveries.isPending) return <StatusMessage kind="loading">Loading deliveries…</StatusMessage>;
  if (deliveries.isError) return <StatusMessage kind="error">{deliveries.error.message}</StatusMessage>;
  if (deliveries.data.deliveries.length === 0) return <StatusMessage kind="empty">No deliveries yet.</StatusMessage>;
  const panelId = `${base}-detail`;
  return (
    <>
      <DataTable
        rows={deliveries.data.deliveries}
        rowKey={(d) => d.id}
        caption="Deliveries"
        columns={[
          { header: 'Event', cell: (d) => d.eventType },
          { header: 'Status', cell: (d) => d.status },
          { header: 'Attempts', cell: (d) => d.attempts },
          { header: 'Response', cell: (d) => d.responseStatus ?? d.lastError ?? '—' },
          { header: 'Last attempt', cell: (d) => <Time value={d.lastAttemptAt} /> },
          { header: 'Next attempt', cell: (d) => <Time value={d.nextAttemptAt} /> },
          {
            header: 'Details',
            cell: (d) => (
              <button
                type="button"
                className="secondary"
                aria-expanded={openId === d.id}
                aria-controls={openId === d.id ? panelId : undefined}
                aria-label={`${openId === d.id ? 'Hide' : 'Show'} payload and attempts of ${d.eventType} ${d.id}`}
                onClick={() => setOpenId(openId === d.id ? null : d.id)}
              >
                {openId === d.id ? 'Hide' : 'Details'}
              </button>
            ),
          },
          writer && {
            header: 'Retry',
            cell: (d) => {
              const blocked = retryBlocked(d, endpoint);
              const reasonId = `${base}-retry-${d.id}`;
              return (
                <>
                  <button type="button" onClick={() => retry.mutate(d.id)} disabled={retry.isPending || blocked !== null} aria-describedby={blocked ? reasonId : undefined}>
                    {d.status === 'SUCCEEDED' ? 'Send again' : 'Retry now'}
                  </button>
                  {blocked && (
                    <small id={reasonId} className="hint">
                      {blocked}
                    </small>
                  )}
                </>
              );
            },
          },
        ]}
      />
      <FormError error={retry.error} />
      {openId && <DeliveryDetail endpointId={endpoint.id} deliveryId={openId} id={panelId} />}
    </>
  );
}

/** A delivery's exact payload (pretty JSON) and each of its attempts: when, HTTP status, how long, what went wrong. */
function DeliveryDetail({ endpointId, deliveryId, id }: { endpointId: string; deliveryId: string; id: string }) {
  const detail = useDelivery(endpointId, deliveryId);
  const headingId = `${id}-heading`;
  return (
    <section id={id} className="delivery-detail" aria-labelledby={headingId}>
      <h4 id={headingId}>Delivery {deliveryId}</h4>
      {detail.isPending && <StatusMessage kind="loading">Loading the delivery…</StatusMessage>}
      {detail.isError && <StatusMessage kind="error">{detail.error.message}</StatusMessage>}
      {detail.data && (
        <>
          <h5>Payload</h5>
          <pre className="payload" tabIndex={0} aria-label="Payload (JSON)">
            {JSON.stringify(detail.data.delivery.payload, null, 2)}
          </pre>
          <h5>Attempts</h5>
          {detail.data.attempts.length === 0 ? (
            <StatusMessage kind="empty">No attempt yet.</StatusMessage>
          ) : (
            <ol className="attempts">
              {detail.data.attempts.map((a) => (
                <li key={a.attempt}>
                  Attempt {a.attempt}: <Time value={a.startedAt} /> · {a.responseStatus === null ? 'no HTTP answer' : `HTTP ${a.responseStatus}`} · {a.durationMs} ms ·{' '}
                  {a.succeeded ? 'delivered' : (a.error ?? 'failed')}
                </li>
              ))}
            </ol>
          )}
        </>
      )}
    </section>
  );
}
