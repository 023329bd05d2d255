import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/core';
import { TargetResult, WebhookTargetGuard } from '../targets/webhook-target-guard';
import { countAttempt, decideAttempt, RetryPolicy } from './attempt-outcome';
import { AttemptRecorder } from './attempt-recorder';
import { DeliveryCapacity } from './delivery-capacity';
import { ClaimedDelivery, DeliveryLeases } from './delivery-leases';
import { HttpOutcome } from './webhook-http-client';
import { WebhookSender } from './webhook-sender';

/**
 * Makes the attempts of leased deliveries, from the lease to the recorded outcome: each waits for
 * one of its endpoint's connections, is sent, is judged (attempt-outcome.ts) and handed to the
 * recorder. Its lease is renewed (DeliveryLeases) and its room held (DeliveryCapacity) until then.
 */
@Injectable()
export class DeliveryAttempts {
  private readonly sending = new Set<Promise<void>>();
  private readonly policy: RetryPolicy;

  constructor(
    private readonly guard: WebhookTargetGuard,
    private readonly sender: WebhookSender,
    private readonly recorder: AttemptRecorder,
    private readonly capacity: DeliveryCapacity,
    private readonly leases: DeliveryLeases,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.policy = { maxAttempts: config.webhookMaxAttempts, retryBaseMs: config.webhookRetryBaseMs };
  }

  /**
   * Starts the attempts of a batch of one endpoint's deliveries, leased to this process at
   * `leasedAt` (this clock, read before the lease was written). The target is checked once for the
   * batch (they share the URL), and again for each batch: the name may resolve elsewhere now than
   * when the endpoint was created.
   */
  start(batch: ClaimedDelivery[], leasedAt: number): void {
    const endpointId = batch[0].endpoint_id;
    this.capacity.take(endpointId, batch.length);
    const checkedAt = Date.now();
    const target = this.guard.resolve(batch[0].url).catch((error: unknown): TargetResult => ({ ok: false, reason: (error as Error).message }));
    for (const delivery of batch) {
      this.leases.hold(delivery, leasedAt);
      const attempt = this.attempt(delivery, target, checkedAt).finally(() => {
        this.leases.drop(delivery.id);
        this.capacity.recorded();
      });
      this.sending.add(attempt);
      void attempt.finally(() => this.sending.delete(attempt));
    }
  }

  /** Resolves once every attempt started so far is recorded. */
  async drained(): Promise<void> {
    await Promise.all([...this.sending]);
  }

  private async attempt(delivery: ClaimedDelivery, target: Promise<TargetResult>, checkedAt: number): Promise<void> {
    const connections = this.capacity.connections(delivery.endpoint_id);
    await connections.acquire();
    const started = new Date();
    let outcome: HttpOutcome;
    try {
      outcome = await this.sender.send(delivery, await target, checkedAt);
    } catch (error) {
      outcome = { status: null, error: (error as Error).message.slice(0, 300), retryAfter: undefined, durationMs: Date.now() - checkedAt };
    } finally {
      connections.release();
      this.capacity.answered(delivery.endpoint_id);
    }
    const record = decideAttempt(delivery, started, outcome, this.policy);
    countAttempt(record, delivery.body);
    await this.recorder.record(record);
  }
}
