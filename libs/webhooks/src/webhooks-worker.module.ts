import { Module } from '@nestjs/common';
import { SweepersModule } from '@app/core';
import { AttemptRecorder } from './delivery/attempt-recorder';
import { DeliveryAttempts } from './delivery/delivery-attempts';
import { DeliveryCapacity } from './delivery/delivery-capacity';
import { DeliveryLeases } from './delivery/delivery-leases';
import { DeliverySweep } from './delivery/delivery-sweep';
import { OpenedSecrets } from './delivery/opened-secrets';
import { WebhookDeliveryQueueModule } from './delivery/webhook-delivery-queue.module';
import { backlogDueProvider, WebhookDeliverer } from './delivery/webhook-deliverer';
import { WebhookMetrics } from './delivery/webhook-metrics';
import { WebhookDeliveryProcessor } from './delivery/webhook-delivery.processor';
import { WebhookHttpClient } from './delivery/webhook-http-client';
import { WebhookRelay } from './delivery/webhook-relay';
import { WebhookSender } from './delivery/webhook-sender';
import { webhookBookkeepingProviders } from './delivery/webhook-bookkeeping';
import { ReplayPace } from './events/replay-pace';
import { ReplayPump } from './events/replay-pump';
import { SystemDnsResolver, WEBHOOK_DNS_RESOLVER } from './targets/dns-resolver';
import { WebhookTargetGuard } from './targets/webhook-target-guard';

/**
 * The worker side of webhooks; imported only by the worker. The relay fans events out; the
 * deliverer claims (DeliveryLeases), makes the attempts (DeliveryAttempts: WebhookSender, then the
 * outcome) within the room DeliveryCapacity gives, and the recorder writes the outcomes; the sweep
 * (on the worker's Sweepers) makes up for lost jobs and dead workers (docs/webhooks.md, Delivery).
 */
@Module({
  imports: [WebhookDeliveryQueueModule, SweepersModule],
  providers: [
    WebhookRelay,
    WebhookDeliverer,
    DeliveryLeases,
    DeliveryCapacity,
    DeliveryAttempts,
    WebhookSender,
    OpenedSecrets,
    AttemptRecorder,
    backlogDueProvider,
    DeliverySweep,
    ReplayPump,
    ReplayPace,
    WebhookDeliveryProcessor,
    WebhookHttpClient,
    WebhookMetrics,
    WebhookTargetGuard,
    { provide: WEBHOOK_DNS_RESOLVER, useClass: SystemDnsResolver },
    ...webhookBookkeepingProviders,
  ],
})
export class WebhooksWorkerModule {}
