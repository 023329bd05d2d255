import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { APP_CONFIG, AppConfig } from '@app/core';
import { ISSUANCE_LEASE_MS } from './lifecycle/issuance-lease';
import { MailJobRepository } from './lifecycle/mail-job.repository';
import { RewardLifecycle } from './lifecycle/reward-lifecycle.service';
import { RewardRepository } from './lifecycle/reward.repository';
import { RewardJobs } from './reward-jobs';

const SWEEP_EVERY_MS = 5_000;
/** Work older than this with no job is assumed orphaned (the process died before enqueueing). */
const ORPHAN_AFTER = '30 seconds';
/** Rows of each kind enqueued per sweep. */
const SWEEP_LIMIT = 1000;

/**
 * Scheduled work of the rewards domain (worker side only): expiry, and the sweeper that enqueues
 * card issuances and e-mails whose jobs were never enqueued or were lost with a Redis failure.
 */
@Injectable()
export class RewardBackgroundJobs implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(RewardBackgroundJobs.name);
  private running = new Set<string>();

  constructor(
    private readonly lifecycle: RewardLifecycle,
    private readonly rewards: RewardRepository,
    private readonly mailJobs: MailJobRepository,
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
    // A card whose issuance lease ran out was left by a run that died at the supplier: enqueued
    // again, its next run looks the order up (docs/rewards.md, Issuance). A live lease is left alone.
    const cardIds = await this.rewards.cardsToSweep(ORPHAN_AFTER, ISSUANCE_LEASE_MS, SWEEP_LIMIT);
    const mailJobIds = await this.mailJobs.pendingToSweep(ORPHAN_AFTER, SWEEP_LIMIT);
    // An e-mail whose worker died while sending: its lease has run out (renewed every few seconds while alive).
    const expiredMailLeases = await this.mailJobs.expiredLeases(SWEEP_LIMIT);
    await this.jobs.enqueue({ cardIds, mailJobIds, expiredMailLeases, swept: true });
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
