export * from './webhooks.module';
export * from './webhooks-worker.module';
export * from './entities/webhook-endpoint.entity';
export * from './entities/webhook-delivery.entity';
export * from './targets/dns-resolver';
export * from './delivery/webhook-signer';
export { WebhookDeliverer } from './delivery/webhook-deliverer';
export { WebhookRelay } from './delivery/webhook-relay';
export { MAX_SOCKETS_PER_ENDPOINT } from './delivery/webhook-http-client';
