/**
 * Queue names and job payloads, in one place: the API enqueues, the worker consumes, and both
 * must agree on these.
 */
export const WEBHOOK_DELIVERY_QUEUE = 'webhook-deliveries';

/** One attempt at one webhook delivery. The job id is `<deliveryId>.<attempt>` so a re-enqueue of the same attempt is a no-op. */
export interface WebhookDeliveryJob {
  deliveryId: string;
}
