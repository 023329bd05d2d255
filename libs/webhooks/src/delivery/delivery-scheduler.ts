import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import { WEBHOOK_DELIVERY_QUEUE, WebhookDeliveryJob } from '@app/core';

/**
 * Puts delivery attempts on the queue. The database row is the truth (status, next_attempt_at);
 * a job only says "look at this delivery now". A lost job is found again by the relay's sweep,
 * and the job id `<delivery>.<attempt>` makes a repeated enqueue of one attempt a no-op.
 */
@Injectable()
export class DeliveryScheduler {
  private readonly logger = new Logger(DeliveryScheduler.name);

  constructor(@InjectQueue(WEBHOOK_DELIVERY_QUEUE) private readonly queue: Queue<WebhookDeliveryJob>) {}

  async enqueue(deliveryId: string, attempt: number, delayMs = 0): Promise<void> {
    try {
      await this.queue.add(
        { deliveryId },
        { jobId: `${deliveryId}.${attempt}`, delay: Math.max(0, delayMs), removeOnComplete: true, removeOnFail: true },
      );
    } catch (error) {
      // Not fatal: the row is committed and the sweep will enqueue it again.
      this.logger.warn({ err: error, deliveryId }, 'enqueueing a webhook delivery failed; the sweep will retry');
    }
  }
}
