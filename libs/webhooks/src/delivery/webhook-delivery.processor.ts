import { Process, Processor } from '@nestjs/bull';
import { Logger } from '@nestjs/common';
import type { Job } from 'bull';
import { WEBHOOK_DELIVERY_QUEUE, WebhookDeliveryJob } from '@app/core';
import { WebhookDeliverer } from './webhook-deliverer';

/**
 * A job says "this endpoint has due deliveries": the deliverer claims and sends all of them in
 * batches. Fresh deliveries do not come this way (the relay hands them to the deliverer of its own
 * process); jobs carry retries (delayed), pings, manual retries and reactivations.
 */
@Processor(WEBHOOK_DELIVERY_QUEUE)
export class WebhookDeliveryProcessor {
  private readonly logger = new Logger(WebhookDeliveryProcessor.name);

  constructor(private readonly deliverer: WebhookDeliverer) {}

  @Process({ concurrency: 16 })
  async deliver(job: Job<WebhookDeliveryJob>): Promise<void> {
    try {
      // Not awaited: under steady traffic an endpoint's claiming loop can run for long, and it must not hold a
      // job slot meanwhile. The deliverer logs its own failures and waits for its attempts at shutdown.
      void this.deliverer.kick(job.data.endpointId);
    } catch (error) {
      // The rows still say when attempts are due; the sweep picks them up again.
      this.logger.error({ err: error, ...job.data }, 'webhook delivery job crashed');
    }
  }
}
