import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/core';
import { ISSUANCE_LEASE_MS } from './card-issuance.service';
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
    // A card whose issuance lease ran out was left by a run that died at the supplier: enqueued
    // again, its next run looks the order up (docs/rewards.md, Issuance). A live lease is left alone.
    const cards: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM reward_cards
        WHERE status = 'PENDING' AND created_at < now() - $1::interval
          AND (issuing_since IS NULL OR issuing_since < clock_timestamp() - make_interval(secs => $2::float8 / 1000))
        ORDER BY created_at LIMIT 1000`,
      [ORPHAN_AFTER, ISSUANCE_LEASE_MS],
    );
    const mails: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM mail_jobs WHERE status = 'PENDING' AND created_at < now() - $1::interval ORDER BY created_at LIMIT 1000`,
      [ORPHAN_AFTER],
    );
    // An e-mail whose worker died while sending: its lease has run out (renewed every few seconds while alive).
    const expiredMailLeases: { id: string; attempts: number }[] = await this.dataSource.query(
      `SELECT id, attempts FROM mail_jobs WHERE status = 'PENDING' AND leased_until < now() ORDER BY leased_until LIMIT 1000`,
    );
    await this.jobs.enqueue({ cardIds: cards.map((c) => c.id), mailJobIds: mails.map((m) => m.id), expiredMailLeases, swept: true });
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
