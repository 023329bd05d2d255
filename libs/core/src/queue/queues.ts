/**
 * Queue names, in one place (the queue module and the metrics know every queue): the API side
 * enqueues, the worker side consumes. Each domain types its own payloads beside its processors
 * (libs/rewards/src/reward-jobs.ts, libs/webhooks/src/delivery/delivery-scheduler.ts); they carry ids
 * only, and the job reads the current state from Postgres under lock.
 */
export const CARD_ISSUANCE_QUEUE = 'card-issuance';
export const MAIL_QUEUE = 'mail';
export const WEBHOOK_DELIVERY_QUEUE = 'webhook-deliveries';
