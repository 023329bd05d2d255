import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@client/schema';
import { webhookEventTypes } from 'virtual:contract-enums';
import { unwrap, v1 } from './http';
import { queryKeys } from './query-keys';

export type WebhookEndpoint = components['schemas']['WebhookEndpointDto'];
export type WebhookEventType = (typeof webhookEventTypes)[number];
/** The event kinds an endpoint may subscribe to, as openapi.yaml lists them (read when the app is built). */
export const WEBHOOK_EVENT_TYPES = webhookEventTypes;

/** A rotation keeps the old secret valid this long (the most the API allows), so receivers switch without a gap. */
const ROTATION_GRACE_SECONDS = 86_400;

export function useWebhookEndpoints() {
  return useQuery({ queryKey: queryKeys.webhooks.endpoints(), queryFn: async () => unwrap(await v1.GET('/v1/webhook-endpoints')) });
}

/** Creates an endpoint; the answer carries its signing secret, shown once. */
export function useCreateEndpoint(onCreated: (secret: string) => void) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: components['schemas']['CreateWebhookEndpointDto']) => unwrap(await v1.POST('/v1/webhook-endpoints', { body })),
    onSuccess: (answer) => {
      onCreated(answer.secret);
      void client.invalidateQueries({ queryKey: queryKeys.webhooks.endpoints() });
    },
  });
}

/** Pause, resume, rotate the secret of (kept valid 24 h beside the new one), test and delete one endpoint. */
export function useEndpointActions(endpoint: WebhookEndpoint, onSecret: (secret: string) => void) {
  const client = useQueryClient();
  const path = { params: { path: { id: endpoint.id } } };
  const refresh = () => client.invalidateQueries({ queryKey: queryKeys.webhooks.endpoints() });
  return {
    toggle: useMutation({
      mutationFn: async () => unwrap(await v1.PATCH('/v1/webhook-endpoints/{id}', { ...path, body: { active: !endpoint.active } })),
      onSuccess: refresh,
    }),
    rotate: useMutation({
      mutationFn: async () => unwrap(await v1.POST('/v1/webhook-endpoints/{id}/rotate-secret', { ...path, body: { keepPreviousForSeconds: ROTATION_GRACE_SECONDS } })),
      onSuccess: (answer) => {
        onSecret(answer.secret);
        void refresh();
      },
    }),
    test: useMutation({
      mutationFn: async () => unwrap(await v1.POST('/v1/webhook-endpoints/{id}/test', path)),
      onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.webhooks.deliveries(endpoint.id) }),
    }),
    remove: useMutation({
      mutationFn: async () => unwrap(await v1.DELETE('/v1/webhook-endpoints/{id}', path)),
      onSuccess: refresh,
    }),
  };
}

export function useDeliveries(endpointId: string) {
  return useQuery({
    queryKey: queryKeys.webhooks.deliveries(endpointId),
    queryFn: async () => unwrap(await v1.GET('/v1/webhook-endpoints/{id}/deliveries', { params: { path: { id: endpointId } } })),
  });
}

export type WebhookDelivery = components['schemas']['WebhookDeliveryDto'];

/** One delivery with its attempts (time, HTTP status, duration, error), oldest first as the API lists them. */
export function useDelivery(endpointId: string, deliveryId: string | null) {
  return useQuery({
    queryKey: queryKeys.webhooks.delivery(endpointId, deliveryId ?? ''),
    enabled: deliveryId !== null,
    queryFn: async () =>
      unwrap(await v1.GET('/v1/webhook-endpoints/{id}/deliveries/{deliveryId}', { params: { path: { id: endpointId, deliveryId: deliveryId! } } })),
  });
}

export function useRetryDelivery(endpointId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (deliveryId: string) =>
      unwrap(await v1.POST('/v1/webhook-endpoints/{id}/deliveries/{deliveryId}/retry', { params: { path: { id: endpointId, deliveryId } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.webhooks.deliveries(endpointId) }),
  });
}

/** Days as the dashboard shows them (UTC, `YYYY-MM-DD`), both included, as the API's half-open instants. */
export function replayRange(from: string, to: string): { createdGte: string; createdLt: string } {
  const end = new Date(`${to}T00:00:00Z`);
  end.setUTCDate(end.getUTCDate() + 1);
  return { createdGte: `${from}T00:00:00Z`, createdLt: end.toISOString() };
}

/** Delivers the events of a range again to one endpoint (docs/webhooks.md, Replay); answers how many. */
export function useReplay(endpointId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (range: { from: string; to: string }) =>
      unwrap(await v1.POST('/v1/webhook-endpoints/{id}/replay', { params: { path: { id: endpointId } }, body: replayRange(range.from, range.to) })),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.webhooks.deliveries(endpointId) }),
  });
}
