import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The Prometheus metrics of this process (or worker thread: each has its own). Names and labels are
 * listed in docs/operations.md; labels only ever take a handful of values (route templates, never
 * raw paths or ids), so the series stay few.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

const registers = [metricsRegistry];

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP requests by method, route template and status, from arrival to the last byte sent.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers,
});

/** Sampled at each scrape by the queue collector. */
export const queueJobs = new Gauge({
  name: 'queue_jobs',
  help: 'Jobs in each queue by state (waiting, active, delayed, failed).',
  labelNames: ['queue', 'state'] as const,
  registers,
});

export const queueJobOutcomes = new Counter({
  name: 'queue_job_outcomes_total',
  help: 'Jobs this process finished, by queue and outcome (completed, failed).',
  labelNames: ['queue', 'outcome'] as const,
  registers,
});

export const webhookDeliveryAttempts = new Counter({
  name: 'webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts by outcome (succeeded, retrying, failed, parked when the receiver answered 410).',
  labelNames: ['outcome'] as const,
  registers,
});

export const webhookDeliveryLag = new Histogram({
  name: 'webhook_delivery_lag_seconds',
  help: 'From the event being recorded to its successful delivery.',
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 21600],
  registers,
});

/** Sampled at each scrape: how long the oldest event not yet delivered has waited. */
export const webhookOldestPendingAge = new Gauge({
  name: 'webhook_oldest_pending_delivery_age_seconds',
  help: 'Age of the oldest webhook delivery still pending to an active endpoint (0 when none is).',
  registers,
});

export const cardIssuances = new Counter({
  name: 'card_issuance_outcomes_total',
  help: 'Card issuance runs by outcome (issued, failed for good, retry after a transient supplier error).',
  labelNames: ['outcome'] as const,
  registers,
});

export const supplierRequestDuration = new Histogram({
  name: 'supplier_request_duration_seconds',
  help: 'Calls to the gift-card supplier by operation and outcome (ok, permanent_error, transient_error).',
  labelNames: ['operation', 'outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers,
});

export const emailsSent = new Counter({
  name: 'email_outcomes_total',
  help: 'Reward e-mail attempts by outcome (sent; retrying after a failure; failed at the last attempt).',
  labelNames: ['outcome'] as const,
  registers,
});

/** Sampled at each scrape from the wallets. */
export const walletReservedCents = new Gauge({
  name: 'wallet_reserved_cents',
  help: 'Cents held from wallets for rewards and cards not yet issued, by currency.',
  labelNames: ['currency'] as const,
  registers,
});

export const walletsWithHolds = new Gauge({
  name: 'wallets_with_holds',
  help: 'Wallets holding a non-zero amount, by currency.',
  labelNames: ['currency'] as const,
  registers,
});

export const rateLimitFallbacks = new Counter({
  name: 'rate_limit_fallback_total',
  help: 'Rate-limit decisions taken by this process alone (in-process counters) because Redis could not be reached.',
  registers,
});

export const passwordHashing = new Counter({
  name: 'password_hashing_total',
  help: 'Password hashes (scrypt, to set or to check a password) by outcome: computed, or refused as busy (503).',
  labelNames: ['outcome'] as const,
  registers,
});
