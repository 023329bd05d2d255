import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import type { AuditOrigin } from '@app/audit';
import { APP_CONFIG, AppConfig, NotFoundError, pageWindow } from '@app/core';
import type { RewardView } from './dto/reward.dto';
import { OPEN_REWARD_STATUSES, RewardEntity, RewardStatus } from './entities/reward.entity';
import { RewardLifecycle } from './lifecycle/reward-lifecycle.service';
import { RewardRepository } from './lifecycle/reward.repository';

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
    @InjectRepository(RewardEntity) private readonly rewards: Repository<RewardEntity>,
    private readonly repository: RewardRepository,
    private readonly lifecycle: RewardLifecycle,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The reward's one redemption link, as the create response gave it (docs/redemption.md, One link). */
  async redemptionUrl(reward: Pick<RewardEntity, 'id' | 'accountId'>): Promise<string> {
    return `${this.config.publicBaseUrl}/r/${await this.lifecycle.redemptionToken(reward)}`;
  }

  /** 404 for unknown ids and for other accounts' rewards alike. */
  async get(accountId: string, id: string, manager: EntityManager = this.dataSource.manager): Promise<RewardView> {
    const reward = await this.repository.find(manager, id, accountId);
    if (!reward) throw new NotFoundError('Reward');
    const [view] = await this.withDetails([reward], manager);
    return view;
  }

  async list(accountId: string, filters: { status?: string; externalId?: string; page: number; pageSize: number }) {
    const { limit, offset } = pageWindow(filters.page, filters.pageSize);
    const where = {
      accountId,
      ...(filters.status ? { status: filters.status as RewardStatus } : {}),
      ...(filters.externalId !== undefined ? { externalId: filters.externalId } : {}),
    };
    const [rewards, total] = await this.rewards.findAndCount({ where, order: { seq: 'DESC' }, take: limit, skip: offset });
    return { views: await this.withDetails(rewards), total };
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

  async stats(accountId: string): Promise<RewardStats> {
    const [row] = await this.dataSource.query(
      `SELECT count(*)::int AS total,
              count(*) FILTER (WHERE status = ANY($2))::int AS active,
              count(*) FILTER (WHERE status = 'REDEEMED')::int AS redeemed,
              (SELECT COALESCE(sum(amount_cents), 0)::bigint FROM reward_cards WHERE account_id = $1 AND status = 'ISSUED') AS issued
         FROM rewards WHERE account_id = $1`,
      [accountId, OPEN_REWARD_STATUSES],
    );
    return { totalRewards: row.total, activeRewards: row.active, redeemedRewards: row.redeemed, totalIssuedCents: Number(row.issued) };
  }

  /** Cards and timelines of several rewards in two queries. */
  private async withDetails(rewards: RewardEntity[], manager: EntityManager = this.dataSource.manager): Promise<RewardView[]> {
    if (rewards.length === 0) return [];
    const ids = rewards.map((r) => r.id);
    const [cards, events] = await Promise.all([this.repository.cardsOf(manager, ids), this.repository.eventsOf(manager, ids)]);
    return rewards.map((reward) => ({
      reward,
      cards: cards.filter((c) => c.rewardId === reward.id),
      events: events.filter((e) => e.rewardId === reward.id),
    }));
  }
}
