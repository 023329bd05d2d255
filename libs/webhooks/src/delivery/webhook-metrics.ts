import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram } from 'prom-client';
import { DataSource } from 'typeorm';
import { metricsRegistry, SampledMetrics } from '@app/core';

// The webhook deliveries' metrics (docs/operations.md, Metrics).

export const webhookDeliveryAttempts = new Counter({
  name: 'webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts by outcome (succeeded, retrying, failed, parked when the receiver answered 410).',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

export const webhookDeliveryLag = new Histogram({
  name: 'webhook_delivery_lag_seconds',
  help: 'From the event being recorded to its successful delivery.',
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 21600],
  registers: [metricsRegistry],
});

/** Sampled at each scrape: how long the oldest event not yet delivered has waited. */
export const webhookOldestPendingAge = new Gauge({
  name: 'webhook_oldest_pending_delivery_age_seconds',
  help: 'Age of the oldest webhook delivery still pending to an active endpoint (0 when none is).',
  registers: [metricsRegistry],
});

/** Samples the age of the oldest pending delivery at each scrape, in one query; on the API and the worker side alike. */
@Injectable()
export class WebhookMetrics extends SampledMetrics {
  protected readonly samplerName = 'webhooks';

  constructor(private readonly dataSource: DataSource) {
    super();
  }

  protected async sample(): Promise<void> {
    const [row]: { age: number }[] = await this.dataSource.query(
      // Paused endpoints keep their deliveries pending on purpose: they would only make the age grow.
      `SELECT COALESCE(EXTRACT(EPOCH FROM clock_timestamp() - MIN(d.created_at)), 0)::float8 AS age
         FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
        WHERE d.status = 'PENDING' AND e.active`,
    );
    webhookOldestPendingAge.set(row?.age ?? 0);
  }
}
