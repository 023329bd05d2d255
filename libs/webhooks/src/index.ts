export * from './webhooks.module';
export * from './webhooks-worker.module';
export * from './entities/webhook-endpoint.entity';
export * from './entities/webhook-delivery.entity';
export * from './targets/dns-resolver';
export * from './delivery/webhook-signer';
