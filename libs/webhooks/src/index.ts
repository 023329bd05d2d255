// What other modules may use; the entities stay inside (docs/architecture.md, Table ownership).
export * from './webhooks.module';
export * from './webhooks-worker.module';
export * from './targets/dns-resolver';
export * from './delivery/webhook-signer';
export { WebhookDeliverer } from './delivery/webhook-deliverer';
export { WebhookDeliveriesService } from './webhook-deliveries.service';
export { WebhookRelay } from './delivery/webhook-relay';
export { WEBHOOK_BOOKKEEPING_DB } from './delivery/webhook-bookkeeping';
export { MAX_SOCKETS_PER_ENDPOINT } from './delivery/webhook-http-client';
export { WEBHOOK_SEALED_COLUMNS } from './webhook-secrets';
export { ReplayPace } from './events/replay-pace';
export { ReplayPump } from './events/replay-pump';
export { EVENT_RETENTION_DAYS } from './events/event.dto';
