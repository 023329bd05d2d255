import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { APP_CONFIG, AppConfig, EventType, hashSecret, newId, NewEvent, randomToken, recordEventsIn, Statement } from '@app/core';
import { RewardCardEntity } from './entities/reward-card.entity';
import { RewardEventEntity } from './entities/reward-event.entity';
import { RewardEntity, RewardSource } from './entities/reward.entity';
import type { RewardView } from './dto/reward.dto';
import type { CheckedReward } from './reward-catalog';

export interface WrittenReward {
  view: RewardView;
  redemptionUrl: string;
  cardIds: string[];
  mailJobId: string;
}

/** New rewards built in memory, ready to be written: what the response shows is known before the write. */
export interface PreparedRewards {
  accountId: string;
  rewards: (WrittenReward & { token: string })[];
}

type TimelineEntry = {
  event: Pick<RewardEventEntity, 'id' | 'rewardId' | 'type' | 'metadata' | 'createdAt'>;
  webhook?: Omit<NewEvent, 'id'>;
};

/** The webhook `data` of a reward event (docs/webhooks.md, Events). */
export function rewardEventData(reward: RewardEntity, status = reward.status): Record<string, unknown> {
  return {
    id: reward.id,
    status,
    valueCents: reward.faceValueCents,
    remainingValueCents: reward.remainingValueCents,
    externalId: reward.externalId,
  };
}

/**
 * Writes new rewards and everything that goes with them, in one statement however many rewards:
 * the rewards, FIXED cards, redemption links, e-mail jobs, timeline and outbox events. Funds are
 * the caller's to hold, in the same statement (single sends) or the same transaction (bulk).
 */
@Injectable()
export class RewardWriter {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
  ) {}

  /** Builds the rewards with their ids, cards, links, jobs and timeline; writes nothing. */
  prepare(input: { accountId: string; currency: string; source: RewardSource; checked: CheckedReward[] }): PreparedRewards {
    const now = new Date();
    const rewards = input.checked.map(({ dto, item }) => {
      const fixed = dto.type === 'FIXED';
      const reward = Object.assign(new RewardEntity(), {
        id: newId('rw'),
        accountId: input.accountId,
        type: dto.type,
        // Committed as SENT: the reward is CREATED and its e-mail queued in this transaction (docs/rewards.md).
        status: 'SENT',
        faceValueCents: dto.valueCents,
        // A FIXED reward's value moves into its PENDING card at once.
        remainingValueCents: fixed ? 0 : dto.valueCents,
        currency: input.currency,
        recipientEmail: dto.recipient.email,
        recipientFirstName: dto.recipient.firstName,
        recipientLastName: dto.recipient.lastName ?? null,
        message: dto.message ?? null,
        utid: fixed ? dto.utid! : null,
        allowedBrandKeys: !fixed && dto.allowedBrandKeys ? [...new Set(dto.allowedBrandKeys)] : null,
        campaign: dto.campaign ?? null,
        externalId: dto.externalId ?? null,
        source: input.source,
        brandName: item?.brandName ?? null,
        brandImageUrl: item?.brandImageUrl ?? null,
        rewardName: item?.rewardName ?? null,
        expiresAt: dto.expiresAt ? new Date(dto.expiresAt) : null,
        sentAt: now,
        openedAt: null,
        redeemedAt: null,
        createdAt: now,
      } satisfies Omit<RewardEntity, 'seq'>);
      const cards = item ? [RewardWriter.pendingCard(reward, item, dto.valueCents, now)] : [];
      const events = (['reward.created', 'reward.sent'] as const).map((type) =>
        Object.assign(new RewardEventEntity(), {
          id: newId('evt'),
          rewardId: reward.id,
          type,
          metadata: type === 'reward.sent' ? { channel: 'email' } : {},
          createdAt: now,
        }),
      );
      const token = randomToken(32);
      return {
        view: { reward, cards, events },
        token,
        redemptionUrl: `${this.config.publicBaseUrl}/r/${token}`,
        cardIds: cards.map((card) => card.id),
        mailJobId: newId('mail'),
      };
    });
    return { accountId: input.accountId, rewards };
  }

  /** Adds the writes of `prepared` to `statement`, done only if `onlyIf` (an SQL condition) holds. */
  writeIn(statement: Statement, prepared: PreparedRewards, onlyIf = 'true'): void {
    const all = prepared.rewards;
    statement.insertRows('new_rewards', 'rewards', all.map((w) => this.row(RewardEntity, w.view.reward)), onlyIf);
    const cards = all.flatMap((w) => w.view.cards);
    if (cards.length) statement.insertRows('new_cards', 'reward_cards', cards.map((card) => this.row(RewardCardEntity, card)), onlyIf);
    statement.insertRows(
      'new_links',
      'redemption_links',
      all.map((w) => ({ token_hash: hashSecret(w.token), reward_id: w.view.reward.id, channel: 'api' })),
      onlyIf,
    );
    statement.insertRows(
      'new_mail_jobs',
      'mail_jobs',
      all.map((w) => ({ id: w.mailJobId, reward_id: w.view.reward.id, kind: 'reward', status: 'PENDING' })),
      onlyIf,
    );
    this.recordTimelineIn(
      statement,
      all.flatMap((w) =>
        w.view.events.map((event) => ({
          event,
          webhook: {
            accountId: prepared.accountId,
            type: event.type as EventType,
            data: rewardEventData(w.view.reward, event.type === 'reward.created' ? 'CREATED' : 'SENT'),
          },
        })),
      ),
      onlyIf,
    );
  }

  /** Prepares and writes in the caller's transaction, in one statement. */
  async write(
    manager: EntityManager,
    input: { accountId: string; currency: string; source: RewardSource; checked: CheckedReward[] },
  ): Promise<WrittenReward[]> {
    const prepared = this.prepare(input);
    const statement = new Statement();
    this.writeIn(statement, prepared);
    await manager.query(statement.text('SELECT 1'), statement.params);
    return RewardWriter.written(prepared);
  }

  static written(prepared: PreparedRewards): WrittenReward[] {
    return prepared.rewards.map(({ view, redemptionUrl, cardIds, mailJobId }) => ({ view, redemptionUrl, cardIds, mailJobId }));
  }

  /**
   * Adds timeline entries; those with a `webhook` part are also recorded in the outbox under the
   * same `evt_` id, so a merchant can match a webhook to the reward's timeline.
   */
  async recordTimeline(manager: EntityManager, entries: TimelineEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const statement = new Statement();
    this.recordTimelineIn(statement, entries);
    await manager.query(statement.text('SELECT 1'), statement.params);
  }

  private recordTimelineIn(statement: Statement, entries: TimelineEntry[], onlyIf = 'true'): void {
    statement.insertRows('new_timeline', 'reward_events', entries.map((e) => this.row(RewardEventEntity, e.event as RewardEventEntity)), onlyIf);
    const webhooks = entries.filter((e) => e.webhook).map((e) => ({ ...e.webhook!, id: e.event.id }));
    if (webhooks.length) recordEventsIn(statement, 'new_outbox_events', webhooks, onlyIf);
  }

  /** An entity as a row keyed by column name, as the table stores it. */
  private row<T extends ObjectLiteral>(target: EntityTarget<T>, entity: T): Record<string, unknown> {
    const row: Record<string, unknown> = {};
    for (const column of this.dataSource.getMetadata(target).columns) {
      if (!column.isInsert) continue;
      const value = column.getEntityValue(entity);
      if (value !== undefined) row[column.databaseName] = value;
    }
    return row;
  }

  /** A new PENDING card of `reward`, with the catalog's names as they are now (the snapshot). */
  static pendingCard(
    reward: Pick<RewardEntity, 'id' | 'accountId' | 'currency'>,
    item: NonNullable<CheckedReward['item']>,
    amountCents: number,
    now = new Date(),
  ): RewardCardEntity {
    return Object.assign(new RewardCardEntity(), {
      id: newId('card'),
      rewardId: reward.id,
      accountId: reward.accountId,
      utid: item.utid,
      rewardName: item.rewardName,
      brandKey: item.brandKey,
      brandName: item.brandName,
      brandImageUrl: item.brandImageUrl,
      amountCents,
      currency: reward.currency,
      status: 'PENDING',
      redemptionInstructions: null,
      credentials: null,
      failureReason: null,
      supplierRequestedAt: null,
      issuedAt: null,
      createdAt: now,
    } satisfies Omit<RewardCardEntity, 'seq'>);
  }

  /** A timeline entry for `type` now, with a fresh `evt_` id. */
  static event(rewardId: string, type: string, metadata: Record<string, unknown> = {}) {
    return { id: newId('evt'), rewardId, type, metadata, createdAt: new Date() };
  }
}
