import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/core';
import { RewardLifecycle } from './lifecycle/reward-lifecycle.service';
import { RewardJobs } from './reward-jobs';

const SWEEP_EVERY_MS = 5_000;
/** Work older than this with no job is assumed orphaned (the process died before enqueueing). */
const ORPHAN_AFTER = '30 seconds';

/**
 * Scheduled work of the rewards domain (worker side only): expiry, and the sweeper that enqueues
 * card issuances and e-mails whose jobs were never enqueued or were lost with a Redis failure.
 */
@Injectable()
export class RewardBackgroundJobs implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(RewardBackgroundJobs.name);
  private running = new Set<string>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly lifecycle: RewardLifecycle,
    private readonly jobs: RewardJobs,
    private readonly scheduler: SchedulerRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.every('reward-expiry', this.config.expirySweepIntervalMs, () => this.expireDue());
    this.every('reward-job-sweeper', SWEEP_EVERY_MS, () => this.enqueueOrphans());
  }

  onModuleDestroy(): void {
    for (const name of ['reward-expiry', 'reward-job-sweeper']) {
      if (this.scheduler.doesExist('interval', name)) this.scheduler.deleteInterval(name);
    }
  }

  /** Expires due rewards (RewardLifecycle.expireDue); several workers may run it at once. */
  expireDue(batchSize?: number): Promise<number> {
    return this.lifecycle.expireDue(batchSize);
  }

  async enqueueOrphans(): Promise<void> {
    const cards: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM reward_cards WHERE status = 'PENDING' AND created_at < now() - $1::interval ORDER BY created_at LIMIT 1000`,
      [ORPHAN_AFTER],
    );
    const mails: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM mail_jobs WHERE status = 'PENDING' AND created_at < now() - $1::interval ORDER BY created_at LIMIT 1000`,
      [ORPHAN_AFTER],
    );
    await this.jobs.enqueue({ cardIds: cards.map((c) => c.id), mailJobIds: mails.map((m) => m.id) });
  }

  /** An interval that never overlaps itself and logs instead of crashing the worker. */
  private every(name: string, ms: number, work: () => Promise<unknown>): void {
    const tick = () => {
      if (this.running.has(name)) return;
      this.running.add(name);
      work()
        .catch((error) => this.logger.error({ err: error }, `${name} failed`))
        .finally(() => this.running.delete(name));
    };
    this.scheduler.addInterval(name, setInterval(tick, ms));
  }
}
