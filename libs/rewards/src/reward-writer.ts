import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig, EventType, hashSecret, newId, NewEvent, randomToken, recordEvents } from '@app/core';
import { MailJobEntity } from './entities/mail-job.entity';
import { RedemptionLinkEntity } from './entities/redemption-link.entity';
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

/** The webhook `data` of a reward event (DECISIONS §9). */
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
 * Writes new rewards and everything that goes with them, in the caller's transaction and in a
 * fixed number of statements however many rewards: the rewards, FIXED cards, redemption links,
 * e-mail jobs, timeline and outbox events. Funds are the caller's to hold.
 */
@Injectable()
export class RewardWriter {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async write(
    manager: EntityManager,
    input: { accountId: string; currency: string; source: RewardSource; checked: CheckedReward[] },
  ): Promise<WrittenReward[]> {
    const now = new Date();
    const written = input.checked.map(({ dto, item }) => {
      const fixed = dto.type === 'FIXED';
      const reward = Object.assign(new RewardEntity(), {
        id: newId('rw'),
        accountId: input.accountId,
        type: dto.type,
        // Committed as SENT: the reward is CREATED and its e-mail queued in this transaction (DECISIONS §4).
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

    const rewards = written.map((w) => w.view.reward);
    await manager.insert(RewardEntity, rewards);
    const cards = written.flatMap((w) => w.view.cards);
    if (cards.length) await manager.insert(RewardCardEntity, cards);
    await manager.insert(
      RedemptionLinkEntity,
      written.map((w) => ({ tokenHash: hashSecret(w.token), rewardId: w.view.reward.id, channel: 'api' as const })),
    );
    await manager.insert(
      MailJobEntity,
      written.map((w) => ({ id: w.mailJobId, rewardId: w.view.reward.id, kind: 'reward' as const, status: 'PENDING' as const })),
    );
    await this.recordTimeline(
      manager,
      written.flatMap((w) =>
        w.view.events.map((event) => ({
          event,
          webhook: {
            accountId: input.accountId,
            type: event.type as EventType,
            data: rewardEventData(w.view.reward, event.type === 'reward.created' ? 'CREATED' : 'SENT'),
          },
        })),
      ),
    );
    return written.map(({ view, redemptionUrl, cardIds, mailJobId }) => ({ view, redemptionUrl, cardIds, mailJobId }));
  }

  /**
   * Adds timeline entries; those with a `webhook` part are also recorded in the outbox under the
   * same `evt_` id, so a merchant can match a webhook to the reward's timeline.
   */
  async recordTimeline(
    manager: EntityManager,
    entries: { event: Pick<RewardEventEntity, 'id' | 'rewardId' | 'type' | 'metadata' | 'createdAt'>; webhook?: Omit<NewEvent, 'id'> }[],
  ): Promise<void> {
    if (entries.length === 0) return;
    await manager.query(
      `INSERT INTO reward_events (id, reward_id, type, metadata, created_at)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::timestamptz[])`,
      [
        entries.map((e) => e.event.id),
        entries.map((e) => e.event.rewardId),
        entries.map((e) => e.event.type),
        entries.map((e) => JSON.stringify(e.event.metadata)),
        entries.map((e) => e.event.createdAt.toISOString()),
      ],
    );
    await recordEvents(
      manager,
      entries.filter((e) => e.webhook).map((e) => ({ ...e.webhook!, id: e.event.id })),
    );
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
