import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The Prometheus metrics of this process (or worker thread: each has its own). Names and labels are
 * listed in docs/operations.md; labels only ever take a handful of values (route templates, never
 * raw paths or ids), so the series stay few. Here are the infrastructure's (requests, queues); each
 * domain defines its own beside its code, in this registry (wallet holds in libs/wallet, webhook
 * deliveries in libs/webhooks, issuance and e-mails in libs/rewards, ...).
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
