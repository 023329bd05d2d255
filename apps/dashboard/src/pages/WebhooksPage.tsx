import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { unwrap, v1 } from '../api/http';
import { mayWrite, useRole } from '../api/session';
import type { components } from '@client/schema';
import { ConfirmButton } from '../components/Confirm';
import { Field } from '../components/Field';
import { FormError, issueOf } from '../components/FormError';
import { SecretOnce } from '../components/SecretOnce';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';

type Endpoint = components['schemas']['WebhookEndpointDto'];
type EventType = Endpoint['events'][number];
const EVENT_TYPES: EventType[] = [
  'reward.created',
  'reward.sent',
  'reward.opened',
  'reward.partially_redeemed',
  'reward.redeemed',
  'reward.expired',
  'reward.canceled',
  'card.issued',
  'card.failed',
  'wallet.credited',
];

/** A rotation keeps the old secret valid this long (the most the API allows), so receivers switch without a gap. */
const ROTATION_GRACE_SECONDS = 86_400;

export function WebhooksPage() {
  const writer = mayWrite(useRole());
  const endpoints = useQuery({ queryKey: ['webhook-endpoints'], queryFn: async () => unwrap(await v1.GET('/v1/webhook-endpoints')) });
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
  const client = useQueryClient();
  const [events, setEvents] = useState<EventType[]>([]);
  const create = useMutation({
    mutationFn: async (body: components['schemas']['CreateWebhookEndpointDto']) => unwrap(await v1.POST('/v1/webhook-endpoints', { body })),
    onSuccess: (answer) => {
      onSecret(answer.secret);
      setEvents([]);
      void client.invalidateQueries({ queryKey: ['webhook-endpoints'] });
    },
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    create.mutate({ url: String(form.get('url') ?? '').trim(), events, description: String(form.get('description') ?? '').trim() || undefined });
  };
  return (
    <form onSubmit={submit} className="stack" aria-label="Add endpoint">
      <h2>Add an endpoint</h2>
      <Field label="URL" name="url" type="url" required placeholder="https://example.com/webhooks" error={issueOf(create.error, 'url')} />
      <Field label="Description (optional)" name="description" error={issueOf(create.error, 'description')} />
      <fieldset>
        <legend>Events</legend>
        <div className="picker">
          {EVENT_TYPES.map((type) => (
            <label key={type}>
              <input type="checkbox" checked={events.includes(type)} onChange={(e) => setEvents((now) => (e.target.checked ? [...now, type] : now.filter((t) => t !== type)))} />
              {type}
            </label>
          ))}
        </div>
        {issueOf(create.error, 'events') && <small className="field-error">{issueOf(create.error, 'events')}</small>}
      </fieldset>
      <FormError error={create.error} fields={['url', 'description', 'events']} />
      <button type="submit" disabled={create.isPending}>
        Add endpoint
      </button>
    </form>
  );
}

function EndpointCard({ endpoint, writer, onSecret }: { endpoint: Endpoint; writer: boolean; onSecret: (secret: string) => void }) {
  const client = useQueryClient();
  const [showDeliveries, setShowDeliveries] = useState(false);
  const path = { params: { path: { id: endpoint.id } } };
  const refresh = () => client.invalidateQueries({ queryKey: ['webhook-endpoints'] });
  const toggle = useMutation({
    mutationFn: async () => unwrap(await v1.PATCH('/v1/webhook-endpoints/{id}', { ...path, body: { active: !endpoint.active } })),
    onSuccess: refresh,
  });
  const rotate = useMutation({
    mutationFn: async () => unwrap(await v1.POST('/v1/webhook-endpoints/{id}/rotate-secret', { ...path, body: { keepPreviousForSeconds: ROTATION_GRACE_SECONDS } })),
    onSuccess: (answer) => {
      onSecret(answer.secret);
      void refresh();
    },
  });
  const test = useMutation({
    mutationFn: async () => unwrap(await v1.POST('/v1/webhook-endpoints/{id}/test', path)),
    onSuccess: () => client.invalidateQueries({ queryKey: ['webhook-deliveries', endpoint.id] }),
  });
  const remove = useMutation({
    mutationFn: async () => unwrap(await v1.DELETE('/v1/webhook-endpoints/{id}', path)),
    onSuccess: refresh,
  });
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
            <button type="button" onClick={() => toggle.mutate()} disabled={toggle.isPending}>
              {endpoint.active ? 'Pause' : 'Resume'}
            </button>
            <ConfirmButton label="Rotate secret" question="The current secret keeps working beside the new one for 24 hours, so your servers can switch." onConfirm={() => rotate.mutate()} disabled={rotate.isPending} />
            <button type="button" onClick={() => test.mutate()} disabled={test.isPending}>
              Send test
            </button>
            <ConfirmButton danger label="Delete endpoint" question="Deliveries to it stop at once." onConfirm={() => remove.mutate()} disabled={remove.isPending} />
          </>
        )}
        <button type="button" className="secondary" aria-expanded={showDeliveries} onClick={() => setShowDeliveries((v) => !v)}>
          {showDeliveries ? 'Hide deliveries' : 'Show deliveries'}
        </button>
      </div>
      {test.isSuccess && <p role="status">Test event queued.</p>}
      <FormError error={toggle.error ?? rotate.error ?? test.error ?? remove.error} />
      {showDeliveries && <Deliveries endpointId={endpoint.id} writer={writer} />}
    </li>
  );
}

function Deliveries({ endpointId, writer }: { endpointId: string; writer: boolean }) {
  const client = useQueryClient();
  const deliveries = useQuery({
    queryKey: ['webhook-deliveries', endpointId],
    queryFn: async () => unwrap(await v1.GET('/v1/webhook-endpoints/{id}/deliveries', { params: { path: { id: endpointId } } })),
  });
  const retry = useMutation({
    mutationFn: async (deliveryId: string) =>
      unwrap(await v1.POST('/v1/webhook-endpoints/{id}/deliveries/{deliveryId}/retry', { params: { path: { id: endpointId, deliveryId } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['webhook-deliveries', endpointId] }),
  });
  if (deliveries.isPending) return <StatusMessage kind="loading">Loading deliveries…</StatusMessage>;
  if (deliveries.isError) return <StatusMessage kind="error">{deliveries.error.message}</StatusMessage>;
  if (deliveries.data.deliveries.length === 0) return <StatusMessage kind="empty">No deliveries yet.</StatusMessage>;
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label="Table (scrolls sideways on narrow screens)">
      <table>
        <caption>Deliveries</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Response</th>
            <th scope="col">Last attempt</th>
            <th scope="col">Next attempt</th>
            {writer && <th scope="col">Retry</th>}
          </tr>
        </thead>
        <tbody>
          {deliveries.data.deliveries.map((d) => (
            <tr key={d.id}>
              <td>{d.eventType}</td>
              <td>{d.status}</td>
              <td>{d.attempts}</td>
              <td>{d.responseStatus ?? d.lastError ?? '—'}</td>
              <td>
                <Time value={d.lastAttemptAt} />
              </td>
              <td>
                <Time value={d.nextAttemptAt} />
              </td>
              {writer && (
                <td>
                  <button type="button" onClick={() => retry.mutate(d.id)} disabled={retry.isPending || d.status === 'SUCCEEDED'}>
                    Retry
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
