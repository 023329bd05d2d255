import { getQueueToken } from '@nestjs/bull';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Job, Queue } from 'bull';
import { createServer, Server } from 'node:http';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { CARD_ISSUANCE_QUEUE, MAIL_QUEUE, WEBHOOK_DELIVERY_QUEUE } from '../queue/queues';
import { metricsAccessRefusal } from './metrics-access';
import { metricsRegistry, queueJobOutcomes, queueJobs } from './metrics';

/** Whether this process serves its metrics on METRICS_PORT itself (the worker side). */
export const SERVE_METRICS = Symbol('SERVE_METRICS');

const QUEUES = [CARD_ISSUANCE_QUEUE, MAIL_QUEUE, WEBHOOK_DELIVERY_QUEUE];
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/** Refreshes a domain's sampled metrics (e.g. wallet holds) at a scrape, in one round trip. */
type Sampler = () => Promise<void>;

/** The domains' samplers of this process by name (tests start several apps in one process; the last one wins). */
const samplers = new Map<string, Sampler>();

/**
 * A domain's metrics sampled at each scrape (e.g. from its tables), as a provider of its module:
 * registered with the collector's samplers while the module runs, so libs/core runs no domain SQL.
 */
export abstract class SampledMetrics implements OnModuleInit, OnModuleDestroy {
  private unregister?: () => void;

  /** One name per domain: of two registrations of a name (two apps in one test process) the later serves. */
  protected abstract readonly samplerName: string;

  /** Sets the domain's gauges; a failure leaves them as they were and is logged by the collector. */
  protected abstract sample(): Promise<void>;

  onModuleInit(): void {
    const sampler: Sampler = () => this.sample();
    samplers.set(this.samplerName, sampler);
    this.unregister = () => {
      if (samplers.get(this.samplerName) === sampler) samplers.delete(this.samplerName);
    };
  }

  onModuleDestroy(): void {
    this.unregister?.();
  }
}

/**
 * Fills the sampled metrics at each scrape (queue depths here; the domains' through their samplers,
 * such as wallet holds and the oldest pending webhook delivery) and counts the outcomes of the jobs
 * this process runs. With `serve: true` (the worker
 * side, which has no HTTP app) it also serves them on METRICS_PORT, under the same access rule as
 * the API's GET /metrics.
 */
@Injectable()
export class MetricsCollectors implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(MetricsCollectors.name);
  private readonly queues: { name: string; queue: Queue }[] = [];
  private server: Server | null = null;
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly moduleRef: ModuleRef,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SERVE_METRICS) private readonly serve: boolean,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const name of QUEUES) {
      const queue = this.queueNamed(name);
      if (!queue) continue;
      this.queues.push({ name, queue });
      // Local events: they fire for jobs this process's processors ran, so each worker counts its own.
      const completed = () => queueJobOutcomes.inc({ queue: name, outcome: 'completed' });
      const failed = (_job: Job) => queueJobOutcomes.inc({ queue: name, outcome: 'failed' });
      queue.on('completed', completed);
      queue.on('failed', failed);
      this.listeners.push(() => {
        queue.removeListener('completed', completed);
        queue.removeListener('failed', failed);
      });
    }
    sampling.current = () => this.sample();
    if (this.serve && this.config.metricsPort !== null) await this.listen(this.config.metricsPort);
  }

  async onModuleDestroy(): Promise<void> {
    for (const remove of this.listeners.splice(0)) remove();
    if (sampling.current) sampling.current = null;
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private queueNamed(name: string): Queue | null {
    try {
      return this.moduleRef.get<Queue>(getQueueToken(name), { strict: false });
    } catch {
      return null; // not registered in this process
    }
  }

  /** One round trip per source; a source that fails leaves its series as they were and is logged. */
  private async sample(): Promise<void> {
    await Promise.all([
      ...this.queues.map(async ({ name, queue }) => {
        // Bounded: while Redis is away Bull holds the command until it reconnects, and a scrape must not wait for that.
        const counts = await withinMs(queue.getJobCounts(), QUEUE_SAMPLE_TIMEOUT_MS);
        for (const state of QUEUE_STATES) queueJobs.set({ queue: name, state }, counts[state] ?? 0);
      }),
      ...[...samplers.values()].map((sampler) => sampler()),
    ]).catch((error: unknown) => this.logger.warn({ err: error }, 'sampling metrics failed'));
  }

  private listen(port: number): Promise<void> {
    const server = createServer((request, response) => {
      const refusal = metricsAccessRefusal(this.config.metricsToken, request.headers.authorization, request.socket.remoteAddress);
      if (request.url?.split('?')[0] !== '/metrics') {
        response.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 'not_found', message: 'Only /metrics is served here.' }));
      } else if (refusal) {
        response.writeHead(403, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 'forbidden', message: refusal }));
      } else {
        metricsText().then(
          (text) => response.writeHead(200, { 'Content-Type': metricsRegistry.contentType }).end(text),
          () => response.writeHead(500).end(),
        );
      }
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, () => {
        this.logger.log(`worker metrics on port ${port} (/metrics)`);
        resolve();
      });
    });
  }
}

/** The process's collector, set once the app has started (tests start several apps in one process). */
const sampling: { current: (() => Promise<void>) | null } = { current: null };

/** The Prometheus text of this process, with the sampled metrics refreshed first. */
export async function metricsText(): Promise<string> {
  await sampling.current?.();
  return metricsRegistry.metrics();
}

const QUEUE_SAMPLE_TIMEOUT_MS = 1_000;

function withinMs<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
