import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { GIFT_CARD_SUPPLIER, GiftCardSupplier, SupplierError } from '@app/catalog';
import { cardIssuances, supplierRequestDuration } from '@app/core';
import { WalletLedger } from '@app/wallet';
import { RewardCardEntity } from './entities/reward-card.entity';
import { RewardEntity } from './entities/reward.entity';
import { rewardEventData, RewardWriter } from './reward-writer';

export type IssuanceOutcome = 'issued' | 'failed' | 'skipped';

type TimelineEntry = Parameters<RewardWriter['recordTimeline']>[1][number];

/**
 * Issues one card. Runs in one transaction that locks the reward, then the card (always in that
 * order, like cancel), and keeps both locks across the supplier call: a concurrent cancel waits,
 * and a second run of the same job finds the card no longer PENDING. The card id is the supplier
 * reference, so a run that died after the supplier issued the card gets the same card back on
 * retry; the capture is keyed by the card in the ledger, so it happens once whatever happens.
 */
@Injectable()
export class CardIssuanceService {
  private readonly logger = new Logger(CardIssuanceService.name);

  constructor(
    private readonly dataSource: DataSource,
    @Inject(GIFT_CARD_SUPPLIER) private readonly supplier: GiftCardSupplier,
    private readonly ledger: WalletLedger,
    private readonly writer: RewardWriter,
  ) {}

  /**
   * Issues the card if it is still PENDING. A permanent supplier error fails the card (its value
   * is re-credited); a transient one (timeout, 5xx) leaves it PENDING and throws, so the queue, and
   * after that the sweeper, ask again with the same reference: after a timeout the supplier may
   * well have issued the card, and only its answer may settle it.
   */
  async issue(cardId: string): Promise<IssuanceOutcome> {
    if (!cardId) return 'skipped';
    // Committed before the supplier is asked, so a crash during the call leaves a mark that stops a
    // cancel from refunding a card the supplier may have issued.
    const marked = await this.dataSource.transaction(async (manager) => {
      const locked = await this.lockPending(manager, cardId);
      if (!locked) return false;
      if (!locked.card.supplierRequestedAt) {
        await manager.update(RewardCardEntity, { id: cardId }, { supplierRequestedAt: new Date() });
      }
      return true;
    });
    if (!marked) return 'skipped';

    let outcome: IssuanceOutcome;
    try {
      outcome = await this.issueMarked(cardId);
    } catch (error) {
      cardIssuances.inc({ outcome: 'retry' });
      throw error;
    }
    if (outcome !== 'skipped') cardIssuances.inc({ outcome });
    return outcome;
  }

  private issueMarked(cardId: string): Promise<IssuanceOutcome> {
    return this.dataSource.transaction(async (manager) => {
      const locked = await this.lockPending(manager, cardId);
      if (!locked) return 'skipped';
      const { reward, card } = locked;
      let issued;
      const timer = supplierRequestDuration.startTimer({ operation: 'issueCard' });
      try {
        issued = await this.supplier.issueCard({
          utid: card.utid,
          amountCents: card.amountCents,
          currency: card.currency,
          reference: card.id,
        });
        timer({ outcome: 'ok' });
      } catch (error) {
        const permanent = error instanceof SupplierError && error.permanent;
        timer({ outcome: permanent ? 'permanent_error' : 'transient_error' });
        if (!permanent) {
          this.logger.error({ cardId, err: error }, 'supplier did not settle the card; it stays PENDING and is asked again');
          throw error; // rolled back; retried with backoff, then by the sweeper
        }
        await this.fail(manager, reward, card, (error as SupplierError).message);
        return 'failed';
      }
      await this.succeed(manager, reward, card, issued.credentials, issued.redemptionInstructions);
      return 'issued';
    });
  }

  /** Locks the reward, then the card (the order cancel uses too); null unless the card is PENDING. */
  private async lockPending(manager: EntityManager, cardId: string): Promise<{ reward: RewardEntity; card: RewardCardEntity } | null> {
    const located = await manager.findOne(RewardCardEntity, { where: { id: cardId }, select: { id: true, rewardId: true } });
    if (!located) return null;
    const reward = await manager
      .getRepository(RewardEntity)
      .createQueryBuilder('r')
      .setLock('pessimistic_write')
      .where('r.id = :id', { id: located.rewardId })
      .getOneOrFail();
    const card = await manager
      .getRepository(RewardCardEntity)
      .createQueryBuilder('c')
      .setLock('pessimistic_write')
      .where('c.id = :id', { id: cardId })
      .getOneOrFail();
    return card.status === 'PENDING' ? { reward, card } : null;
  }

  private async succeed(
    manager: EntityManager,
    reward: RewardEntity,
    card: RewardCardEntity,
    credentials: RewardCardEntity['credentials'],
    instructions: string,
  ): Promise<void> {
    const now = new Date();
    await manager.update(
      RewardCardEntity,
      { id: card.id },
      { status: 'ISSUED', credentials, redemptionInstructions: instructions, issuedAt: now },
    );
    const captured = await this.ledger.capture(manager, {
      accountId: reward.accountId,
      amountCents: card.amountCents,
      relatedType: 'card',
      relatedId: card.id,
      description: `${card.brandName} card for reward ${reward.id}`,
    });
    if (!captured) throw new Error(`card ${card.id} was already captured while PENDING`);
    const timeline: TimelineEntry[] = [this.cardEvent(reward, card, 'card.issued', 'ISSUED')];
    const next = await this.statusAfterCard(manager, reward, card.id);
    if (next && next !== reward.status) {
      const changes: Partial<RewardEntity> = { status: next };
      if (next === 'REDEEMED') changes.redeemedAt = now;
      await manager.update(RewardEntity, { id: reward.id }, changes);
      Object.assign(reward, changes);
      const type = next === 'REDEEMED' ? 'reward.redeemed' : 'reward.partially_redeemed';
      timeline.push({
        event: RewardWriter.event(reward.id, type),
        webhook: { accountId: reward.accountId, type, data: rewardEventData(reward) },
      });
    }
    await this.writer.recordTimeline(manager, timeline);
  }

  /**
   * DECISIONS §4: a FIXED reward whose card fails returns the value to the wallet and is CANCELED
   * (no reward.canceled event). A CHOICE card's value returns to the reward, whose status goes
   * back to what is left; if the reward has closed meanwhile, the value goes to the wallet.
   */
  private async fail(manager: EntityManager, reward: RewardEntity, card: RewardCardEntity, reason: string): Promise<void> {
    this.logger.warn({ cardId: card.id, rewardId: reward.id, reason }, 'card issuance failed');
    await manager.update(RewardCardEntity, { id: card.id }, { status: 'FAILED', failureReason: reason.slice(0, 500) });
    const closed = reward.status === 'CANCELED' || reward.status === 'EXPIRED';
    if (reward.type === 'FIXED' || closed) {
      const released = await this.ledger.release(manager, {
        accountId: reward.accountId,
        amountCents: card.amountCents,
        relatedType: 'card',
        relatedId: card.id,
        description: `Card ${card.id} failed; value returned`,
      });
      if (!released) throw new Error(`card ${card.id} was already released while PENDING`);
    }
    if (reward.type === 'FIXED') {
      await manager.update(RewardEntity, { id: reward.id }, { status: 'CANCELED' });
    } else if (!closed) {
      const issued = await manager.count(RewardCardEntity, { where: { rewardId: reward.id, status: 'ISSUED' } });
      await manager.update(
        RewardEntity,
        { id: reward.id },
        {
          remainingValueCents: () => `remaining_value_cents + ${Number(card.amountCents)}`,
          status: issued > 0 ? 'PARTIALLY_REDEEMED' : 'OPENED',
        },
      );
    }
    await this.writer.recordTimeline(manager, [this.cardEvent(reward, card, 'card.failed', 'FAILED', { reason })]);
  }

  /** FIXED: REDEEMED with its card. CHOICE: REDEEMED once nothing is left or pending, else PARTIALLY_REDEEMED. */
  private async statusAfterCard(manager: EntityManager, reward: RewardEntity, cardId: string): Promise<RewardEntity['status'] | null> {
    if (reward.status === 'CANCELED' || reward.status === 'EXPIRED') return null;
    if (reward.type === 'FIXED') return 'REDEEMED';
    if (reward.remainingValueCents > 0) return 'PARTIALLY_REDEEMED';
    const pending = await manager
      .createQueryBuilder(RewardCardEntity, 'c')
      .where('c.reward_id = :rewardId AND c.status = :pending AND c.id <> :cardId', { rewardId: reward.id, pending: 'PENDING', cardId })
      .getCount();
    return pending > 0 ? 'PARTIALLY_REDEEMED' : 'REDEEMED';
  }

  private cardEvent(
    reward: RewardEntity,
    card: RewardCardEntity,
    type: 'card.issued' | 'card.failed',
    status: string,
    metadata: Record<string, unknown> = {},
  ): TimelineEntry {
    return {
      event: RewardWriter.event(reward.id, type, { cardId: card.id, ...metadata }),
      webhook: {
        accountId: reward.accountId,
        type,
        data: { rewardId: reward.id, card: { id: card.id, utid: card.utid, amountCents: card.amountCents, currency: card.currency, status } },
      },
    };
  }
}
