import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/core';
import { WalletLedger } from '@app/wallet';
import { OPEN_REWARD_STATUSES, RewardEntity } from './entities/reward.entity';
import { RewardJobs } from './reward-jobs';
import { rewardEventData, RewardWriter } from './reward-writer';

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
    private readonly ledger: WalletLedger,
    private readonly writer: RewardWriter,
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

  /**
   * Expires due rewards in batches. `FOR UPDATE SKIP LOCKED` lets several workers share the work
   * without expiring one reward twice (and the ledger's once-per-reward release would refuse it).
   */
  async expireDue(batchSize = 100): Promise<number> {
    let expired = 0;
    for (;;) {
      const count = await this.dataSource.transaction(async (manager) => {
        const due: RewardEntity[] = await manager
          .getRepository(RewardEntity)
          .createQueryBuilder('r')
          .setLock('pessimistic_write')
          .setOnLocked('skip_locked')
          // Only rewards with value left expire (docs/rewards.md, Expiry); one whose value is all in pending cards
          // is REDEEMED when they issue, or gets value back (and expires) if one fails.
          .where('r.expires_at <= now() AND r.status IN (:...open) AND r.remaining_value_cents > 0', { open: OPEN_REWARD_STATUSES })
          .orderBy('r.expires_at')
          .limit(batchSize)
          .getMany();
        // Wallets are locked in account order, so two sweepers can never wait on each other.
        due.sort((a, b) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0));
        for (const reward of due) {
          const released = await this.ledger.release(manager, {
            accountId: reward.accountId,
            amountCents: reward.remainingValueCents,
            relatedType: 'reward',
            relatedId: reward.id,
            description: `Reward ${reward.id} expired`,
          });
          if (!released) throw new Error(`reward ${reward.id} was already released while open`);
          reward.status = 'EXPIRED';
          reward.remainingValueCents = 0;
        }
        if (due.length === 0) return 0;
        await manager.update(RewardEntity, due.map((r) => r.id), { status: 'EXPIRED', remainingValueCents: 0 });
        await this.writer.recordTimeline(
          manager,
          due.map((reward) => ({
            event: RewardWriter.event(reward.id, 'reward.expired'),
            webhook: { accountId: reward.accountId, type: 'reward.expired' as const, data: rewardEventData(reward) },
          })),
        );
        return due.length;
      });
      expired += count;
      if (count < batchSize) return expired;
    }
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
