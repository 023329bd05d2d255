import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import { WEBHOOK_DELIVERY_QUEUE, WebhookDeliveryJob } from '@app/core';

/**
 * Puts delivery work on the queue. The database row is the truth (status, next_attempt_at); a job
 * only says "send this endpoint's due deliveries now", and the worker that takes it claims every
 * due delivery of the endpoint in batches. A lost job is made up for by the relay's sweep.
 */
@Injectable()
export class DeliveryScheduler {
  private readonly logger = new Logger(DeliveryScheduler.name);

  constructor(@InjectQueue(WEBHOOK_DELIVERY_QUEUE) private readonly queue: Queue<WebhookDeliveryJob>) {}

  /** One attempt of one delivery, now or later; the job id `<delivery>.<attempt>` makes a repeated enqueue a no-op. */
  async enqueue(endpointId: string, deliveryId: string, attempt: number, delayMs = 0): Promise<void> {
    await this.add({ endpointId, deliveryId }, { jobId: `${deliveryId}.${attempt}`, delay: Math.max(0, delayMs) });
  }

  /** The endpoint's due deliveries, whichever they are (e.g. those unparked when it is reactivated). */
  async enqueueEndpoint(endpointId: string): Promise<void> {
    await this.add({ endpointId }, {});
  }

  private async add(data: WebhookDeliveryJob, options: { jobId?: string; delay?: number }): Promise<void> {
    try {
      await this.queue.add(data, { ...options, removeOnComplete: true, removeOnFail: true });
    } catch (error) {
      // Not fatal: the row is committed and the sweep will find it.
      this.logger.warn({ err: error, ...data }, 'enqueueing a webhook delivery failed; the sweep will retry');
    }
  }
}
