import { Module } from '@nestjs/common';
import { AttemptRecorder } from './delivery/attempt-recorder';
import { WebhookDeliveryQueueModule } from './delivery/webhook-delivery-queue.module';
import { WebhookDeliverer } from './delivery/webhook-deliverer';
import { WebhookMetrics } from './delivery/webhook-metrics';
import { WebhookDeliveryProcessor } from './delivery/webhook-delivery.processor';
import { WebhookHttpClient } from './delivery/webhook-http-client';
import { WebhookRelay } from './delivery/webhook-relay';
import { webhookBookkeepingProviders } from './delivery/webhook-bookkeeping';
import { SystemDnsResolver, WEBHOOK_DNS_RESOLVER } from './targets/dns-resolver';
import { WebhookTargetGuard } from './targets/webhook-target-guard';

/** The outbox relay (fan-out, sweep), the deliverer and the delivery processor; imported only by the worker side. */
@Module({
  imports: [WebhookDeliveryQueueModule],
  providers: [
    WebhookRelay,
    WebhookDeliverer,
    AttemptRecorder,
    WebhookDeliveryProcessor,
    WebhookHttpClient,
    WebhookMetrics,
    WebhookTargetGuard,
    { provide: WEBHOOK_DNS_RESOLVER, useClass: SystemDnsResolver },
    ...webhookBookkeepingProviders,
  ],
})
export class WebhooksWorkerModule {}
