import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { GIFT_CARD_SUPPLIER, GiftCardSupplier, SupplierError } from '@app/catalog';
import { cardIssuances, supplierRequestDuration } from '@app/core';
import { RewardLifecycle } from './lifecycle/reward-lifecycle.service';

export type IssuanceOutcome = 'issued' | 'failed' | 'skipped';

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
    private readonly lifecycle: RewardLifecycle,
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
      const locked = await this.lifecycle.lockPendingCard(manager, cardId);
      if (!locked) return false;
      await this.lifecycle.markSupplierAsked(manager, locked);
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
      const locked = await this.lifecycle.lockPendingCard(manager, cardId);
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
        this.logger.warn({ cardId: card.id, rewardId: reward.id, reason: error.message }, 'card issuance failed');
        await this.lifecycle.fail(manager, locked, error.message);
        return 'failed';
      }
      await this.lifecycle.issue(manager, locked, issued);
      return 'issued';
    });
  }
}
