import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/audit';
import { WebhookDeliveryQueueModule } from './delivery/webhook-delivery-queue.module';
import { WebhookMetrics } from './delivery/webhook-metrics';
import { WebhookDeliveryAttemptEntity } from './entities/webhook-delivery-attempt.entity';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity';
import { SystemDnsResolver, WEBHOOK_DNS_RESOLVER } from './targets/dns-resolver';
import { WebhookTargetGuard } from './targets/webhook-target-guard';
import { EventsController } from './events/events.controller';
import { EventsService } from './events/events.service';
import { ReplaysService } from './events/replays.service';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookEndpointsController } from './webhook-endpoints.controller';
import { WebhookEndpointsService } from './webhook-endpoints.service';

/** The webhook endpoint API. It only enqueues; sending lives in WebhooksWorkerModule. */
@Module({
  imports: [
    TypeOrmModule.forFeature([WebhookEndpointEntity, WebhookDeliveryEntity, WebhookDeliveryAttemptEntity]),
    WebhookDeliveryQueueModule,
    AuditModule,
  ],
  controllers: [WebhookEndpointsController, EventsController],
  providers: [
    WebhookEndpointsService,
    WebhookDeliveriesService,
    EventsService,
    ReplaysService,
    WebhookTargetGuard,
    WebhookMetrics,
    { provide: WEBHOOK_DNS_RESOLVER, useClass: SystemDnsResolver },
  ],
})
export class WebhooksModule {}
