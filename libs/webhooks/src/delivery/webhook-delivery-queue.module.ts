import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { WEBHOOK_DELIVERY_QUEUE } from '@app/core';
import { DeliveryScheduler } from './delivery-scheduler';

/** The delivery queue, registered once and shared by the API side (producer) and the worker side. */
@Module({
  imports: [BullModule.registerQueue({ name: WEBHOOK_DELIVERY_QUEUE })],
  providers: [DeliveryScheduler],
  exports: [DeliveryScheduler, BullModule],
})
export class WebhookDeliveryQueueModule {}
