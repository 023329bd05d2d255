import { Process, Processor } from '@nestjs/bull';
import { Logger } from '@nestjs/common';
import type { Job } from 'bull';
import { WEBHOOK_DELIVERY_QUEUE, WebhookDeliveryJob } from '@app/core';
import { WebhookDeliverer } from './webhook-deliverer';

@Processor(WEBHOOK_DELIVERY_QUEUE)
export class WebhookDeliveryProcessor {
  private readonly logger = new Logger(WebhookDeliveryProcessor.name);

  constructor(private readonly deliverer: WebhookDeliverer) {}

  @Process({ concurrency: 16 })
  async deliver(job: Job<WebhookDeliveryJob>): Promise<void> {
    try {
      await this.deliverer.attempt(job.data.deliveryId);
    } catch (error) {
      // The row still says when the attempt is due; the sweep picks it up again.
      this.logger.error({ err: error, deliveryId: job.data.deliveryId }, 'webhook delivery attempt crashed');
    }
  }
}
