import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, Repository } from 'typeorm';
import { AuditLog, AuditOrigin } from '@app/audit';
import { ApiError, newId, NotFoundError, pageWindow, ValidationError } from '@app/core';
import { LedgerEntry, WalletLedger } from '@app/wallet';
import type { RewardView } from './dto/reward.dto';
import { MailJobEntity } from './entities/mail-job.entity';
import { RewardCardEntity } from './entities/reward-card.entity';
import { RewardEventEntity } from './entities/reward-event.entity';
import { OPEN_REWARD_STATUSES, RewardEntity, RewardStatus } from './entities/reward.entity';
import { RewardJobs } from './reward-jobs';
import { rewardEventData, RewardWriter } from './reward-writer';

export interface RewardStats {
  totalRewards: number;
  activeRewards: number;
  redeemedRewards: number;
  totalIssuedCents: number;
}

/** Reading, cancelling and re-sending rewards. */
@Injectable()
export class RewardsService {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(RewardEntity) private readonly rewards: Repository<RewardEntity>,
    private readonly ledger: WalletLedger,
    private readonly writer: RewardWriter,
    private readonly jobs: RewardJobs,
    private readonly audit: AuditLog,
  ) {}

  /** 404 for unknown ids and for other accounts' rewards alike. */
  async get(accountId: string, id: string, manager: EntityManager = this.dataSource.manager): Promise<RewardView> {
    const reward = await manager.findOneBy(RewardEntity, { id, accountId });
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

  /**
   * Cancels an open reward (docs/rewards.md, Cancel): value not yet in a card returns to the wallet; a FIXED
   * reward's PENDING card is cancelled and its value returned. Card issuance holds the reward row
   * lock while it calls the supplier, so a cancel that races it waits, then finds the reward
   * REDEEMED (422) or the card still PENDING: never both a card and a refund.
   */
  async cancel(accountId: string, id: string, origin: AuditOrigin): Promise<RewardView> {
    await this.dataSource.transaction(async (manager) => {
      // Issuance holds the reward lock across the supplier call; wait for it, but not forever.
      await manager.query(`SET LOCAL lock_timeout = '10s'`);
      const reward = await this.lock(manager, accountId, id).catch((error: { driverError?: { code?: string } }) => {
        if (error.driverError?.code === '55P03') {
          throw new ApiError(503, 'internal', 'The reward is busy (a card is being issued); retry shortly.');
        }
        throw error;
      });
      if (!OPEN_REWARD_STATUSES.includes(reward.status)) {
        throw new ValidationError(`Reward ${id} is ${reward.status} and cannot be cancelled.`);
      }
      if (reward.type === 'FIXED') {
        const card = await manager
          .getRepository(RewardCardEntity)
          .createQueryBuilder('c')
          .setLock('pessimistic_write')
          .where('c.reward_id = :id AND c.status = :pending', { id, pending: 'PENDING' })
          .getOne();
        if (card?.supplierRequestedAt) {
          // The supplier was asked and has not answered for sure: refunding now could pay for a card
          // twice. The issuance retry settles it (REDEEMED, or FAILED with the value returned).
          throw new ValidationError(`Reward ${id}'s card is being issued and can no longer be cancelled; retry to see the outcome.`);
        }
        if (card) {
          await manager.update(RewardCardEntity, { id: card.id }, { status: 'CANCELED' });
          await this.release(manager, { accountId, amountCents: card.amountCents, relatedType: 'card', relatedId: card.id, description: `Cancelled reward ${id}` });
        }
      } else if (reward.remainingValueCents > 0) {
        await this.release(manager, {
          accountId,
          amountCents: reward.remainingValueCents,
          relatedType: 'reward',
          relatedId: id,
          description: `Cancelled reward ${id}`,
        });
      }
      reward.status = 'CANCELED';
      reward.remainingValueCents = 0;
      await manager.update(RewardEntity, { id }, { status: 'CANCELED', remainingValueCents: 0 });
      const event = RewardWriter.event(id, 'reward.canceled');
      await this.writer.recordTimeline(manager, [
        { event, webhook: { accountId, type: 'reward.canceled', data: rewardEventData(reward) } },
      ]);
      await this.audit.record(manager, { accountId, origin, action: 'reward.canceled', targetType: 'reward', targetId: id, metadata: { type: reward.type, faceValueCents: reward.faceValueCents } });
    });
    return this.get(accountId, id);
  }

  /** Queues the recipient e-mail again, in any state (docs/rewards.md, Resend); the timeline gets `reward.resent`. */
  async resend(accountId: string, id: string): Promise<RewardView> {
    const mailJobId = newId('mail');
    await this.dataSource.transaction(async (manager) => {
      // No row lock: a resend changes nothing a concurrent issuance or cancel could race with.
      if (!(await manager.existsBy(RewardEntity, { id, accountId }))) throw new NotFoundError('Reward');
      await manager.insert(MailJobEntity, { id: mailJobId, rewardId: id, kind: 'resend', status: 'PENDING' });
      await this.writer.recordTimeline(manager, [{ event: RewardWriter.event(id, 'reward.resent', { channel: 'email' }) }]);
    });
    await this.jobs.enqueue({ mailJobIds: [mailJobId] });
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

  /** A release that finds its movement already done means the state machine was bypassed: roll back. */
  private async release(manager: EntityManager, entry: LedgerEntry): Promise<void> {
    if (!(await this.ledger.release(manager, entry))) {
      throw new Error(`ledger refused a second release of ${entry.relatedType} ${entry.relatedId}`);
    }
  }

  private async lock(manager: EntityManager, accountId: string, id: string): Promise<RewardEntity> {
    const reward = await manager
      .getRepository(RewardEntity)
      .createQueryBuilder('r')
      .setLock('pessimistic_write')
      .where('r.id = :id AND r.account_id = :accountId', { id, accountId })
      .getOne();
    if (!reward) throw new NotFoundError('Reward');
    return reward;
  }

  /** Cards and timelines of several rewards in two queries. */
  private async withDetails(rewards: RewardEntity[], manager: EntityManager = this.dataSource.manager): Promise<RewardView[]> {
    if (rewards.length === 0) return [];
    const ids = rewards.map((r) => r.id);
    const [cards, events] = await Promise.all([
      manager.find(RewardCardEntity, { where: { rewardId: In(ids) }, order: { seq: 'ASC' } }),
      manager.find(RewardEventEntity, { where: { rewardId: In(ids) }, order: { seq: 'ASC' } }),
    ]);
    return rewards.map((reward) => ({
      reward,
      cards: cards.filter((c) => c.rewardId === reward.id),
      events: events.filter((e) => e.rewardId === reward.id),
    }));
  }
}
