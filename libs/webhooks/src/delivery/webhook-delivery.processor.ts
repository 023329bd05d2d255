import { Process, Processor } from '@nestjs/bull';
import type { Job } from 'bull';
import { WEBHOOK_DELIVERY_QUEUE } from '@app/core';
import type { WebhookDeliveryJob } from './delivery-scheduler';
import { WebhookDeliverer } from './webhook-deliverer';

/**
 * A job says "this endpoint has due deliveries": the deliverer claims and sends all of them in
 * batches. Fresh deliveries do not come this way (the relay hands them to the deliverer of its own
 * process); jobs carry retries (delayed), pings, manual retries and reactivations.
 */
@Processor(WEBHOOK_DELIVERY_QUEUE)
export class WebhookDeliveryProcessor {
  constructor(private readonly deliverer: WebhookDeliverer) {}

  @Process({ concurrency: 16 })
  deliver(job: Job<WebhookDeliveryJob>): void {
    // Not awaited: under steady traffic an endpoint's claiming loop can run for long, and it must not hold a
    // job slot meanwhile. The deliverer logs its own failures (the rows still say when attempts are due, and
    // the sweep picks them up again) and waits for its attempts at shutdown.
    void this.deliverer.kick(job.data.endpointId);
  }
}
