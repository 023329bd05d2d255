import { Counter, Histogram } from 'prom-client';
import { metricsRegistry } from '@app/core';

// Card issuance's and the reward e-mails' metrics (docs/operations.md, Metrics).

export const cardIssuances = new Counter({
  name: 'card_issuance_outcomes_total',
  help: 'Card issuance runs by outcome (issued, failed for good, retry after a transient supplier error).',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

/** Timed by card issuance around each supplier call. */
export const supplierRequestDuration = new Histogram({
  name: 'supplier_request_duration_seconds',
  help: 'Calls to the gift-card supplier by operation and outcome (ok, permanent_error, transient_error).',
  labelNames: ['operation', 'outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [metricsRegistry],
});

export const emailsSent = new Counter({
  name: 'email_outcomes_total',
  help: 'Reward e-mail attempts by outcome (sent; retrying after a failure; failed at the last attempt).',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

export const smsSent = new Counter({
  name: 'sms_outcomes_total',
  help: 'Reward text message attempts by outcome (sent; retrying after a temporary failure; failed for good).',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});
