/**
 * Queue names and job payloads, in one place: the API side enqueues, the worker side consumes.
 * Payloads carry ids only; the job reads the current state from Postgres under lock.
 */
export const CARD_ISSUANCE_QUEUE = 'card-issuance';
export const MAIL_QUEUE = 'mail';
export const WEBHOOK_DELIVERY_QUEUE = 'webhook-deliveries';

export interface CardIssuanceJob {
  cardId: string;
}

export interface MailJob {
  mailJobId: string;
}

/**
 * "Send the due deliveries of this endpoint now." A job for one delivery's attempt (a retry, a ping,
 * a manual retry) also names it, and its job id is `<deliveryId>.<attempt>` so a re-enqueue of the
 * same attempt is a no-op.
 */
export interface WebhookDeliveryJob {
  endpointId: string;
  deliveryId?: string;
}
