import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { AuditOrigin } from '@app/audit';
import { APP_CONFIG, AppConfig, ListWindow, NotFoundError, readListPage, readListTotals, readSnapshot } from '@app/core';
import type { RewardView } from './dto/reward.dto';
import { OPEN_REWARD_STATUSES, RewardEntity } from './entities/reward.entity';
import { RewardLifecycle } from './lifecycle/reward-lifecycle.service';
import { RewardRepository } from './lifecycle/reward.repository';
import { redemptionUrl } from './reward-drafts';

export interface RewardStats {
  totalRewards: number;
  activeRewards: number;
  redeemedRewards: number;
  totalIssuedCents: number;
}

/** The merchant's view of rewards: reading them, and the transitions a merchant asks for (through RewardLifecycle). */
@Injectable()
export class RewardsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: RewardRepository,
    private readonly lifecycle: RewardLifecycle,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The reward's one redemption link, as the create response gave it (docs/redemption.md, One link). */
  async redemptionUrl(reward: Pick<RewardEntity, 'id' | 'accountId'>): Promise<string> {
    return redemptionUrl(this.config.publicBaseUrl, await this.lifecycle.redemptionToken(reward));
  }

  /**
   * 404 for unknown ids and for other accounts' rewards alike. The reward, its cards and its
   * timeline are read in one snapshot, so they show one committed state (docs/pagination.md, One snapshot).
   */
  async get(accountId: string, id: string, manager?: EntityManager): Promise<RewardView> {
    const read = async (m: EntityManager) => {
      const view = await this.repository.view(m, id, accountId);
      if (!view) throw new NotFoundError('Reward');
      return view;
    };
    return manager ? read(manager) : readSnapshot(this.dataSource, read);
  }

  /** A page of rewards, newest first, with cards, timelines and total from one snapshot (docs/pagination.md). */
  async list(accountId: string, filters: { status?: string; externalId?: string }, window: ListWindow) {
    return readSnapshot(this.dataSource, async (manager) => {
      const page = await readListPage(
        manager,
        {
          entity: RewardEntity,
          accountId,
          filters: { status: filters.status, external_id: filters.externalId },
          countedAs: filters.externalId !== undefined ? null : filters.status ? `rewards:${filters.status}` : 'rewards',
          order: 'seq',
        },
        window,
        this.repository.pageOfViews,
      );
      return { views: page.items, total: page.total, hasMore: page.hasMore };
    });
  }

  /** Cancels an open reward (the rules are RewardLifecycle.cancel's); the audit log records who did it. */
  async cancel(accountId: string, id: string, origin: AuditOrigin): Promise<RewardView> {
    await this.lifecycle.cancel(accountId, id, origin);
    return this.get(accountId, id);
  }

  /** Queues the recipient e-mail again, in any state. */
  async resend(accountId: string, id: string): Promise<RewardView> {
    await this.lifecycle.resend(accountId, id);
    return this.get(accountId, id);
  }

  /** From the kept counts (docs/pagination.md, Totals): the same cost at a thousand rewards as at a million. */
  async stats(accountId: string): Promise<RewardStats> {
    const open = OPEN_REWARD_STATUSES.map((status) => `rewards:${status}`);
    const totals = await readListTotals(this.dataSource.manager, accountId, ['rewards', 'rewards:REDEEMED', 'issued_cents', ...open]);
    return {
      totalRewards: totals.rewards,
      activeRewards: open.reduce((sum, list) => sum + totals[list], 0),
      redeemedRewards: totals['rewards:REDEEMED'],
      totalIssuedCents: totals.issued_cents,
    };
  }
}
