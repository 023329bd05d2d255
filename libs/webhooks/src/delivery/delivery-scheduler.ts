import { InjectQueue } from '@nestjs/bull';
import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import { BackgroundEnqueue, WEBHOOK_DELIVERY_QUEUE } from '@app/core';

/**
 * "Send the due deliveries of this endpoint now." A job for one delivery's attempt (a retry, a ping,
 * a manual retry) also names it, and its job id is `<deliveryId>.<attempt>` so a re-enqueue of the
 * same attempt is a no-op.
 */
export interface WebhookDeliveryJob {
  endpointId: string;
  deliveryId?: string;
}

/**
 * Puts delivery work on the queue. The database row is the truth (status, next_attempt_at); a job
 * only says "send this endpoint's due deliveries now", and the worker that takes it claims every
 * due delivery of the endpoint in batches. A lost job is made up for by the relay's sweep, so an
 * enqueue runs in the background and never holds up its caller (a response, the recorder) while
 * Redis is away or reconnecting (docs/operations.md, Degraded modes).
 */
@Injectable()
export class DeliveryScheduler implements BeforeApplicationShutdown {
  private readonly background = new BackgroundEnqueue(new Logger(DeliveryScheduler.name));

  constructor(@InjectQueue(WEBHOOK_DELIVERY_QUEUE) private readonly queue: Queue<WebhookDeliveryJob>) {}

  /** One attempt of one delivery, now or later; the job id `<delivery>.<attempt>` makes a repeated enqueue a no-op. */
  async enqueue(endpointId: string, deliveryId: string, attempt: number, delayMs = 0): Promise<void> {
    await this.add({ endpointId, deliveryId }, { jobId: `${deliveryId}.${attempt}`, delay: Math.max(0, delayMs) });
  }

  /** The endpoint's due deliveries, whichever they are (e.g. those unparked when it is reactivated). */
  async enqueueEndpoint(endpointId: string): Promise<void> {
    await this.add({ endpointId }, {});
  }

  /** Returns once the enqueue is started. Not fatal if it fails: the row is committed and the sweep will find it. */
  private add(data: WebhookDeliveryJob, options: { jobId?: string; delay?: number }): Promise<void> {
    this.background.run({ ...data }, () => this.queue.add(data, { ...options, removeOnComplete: true, removeOnFail: true }));
    return Promise.resolve();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.background.settle();
  }
}
