import { Inject, Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { GateTurn, GIFT_CARD_SUPPLIER, GiftCardSupplier, SupplierCard, SupplierError, SupplierGate } from '@app/catalog';
import { IssuanceLease, MarkedCard } from './lifecycle/issuance-lease';
import { RewardLifecycle } from './lifecycle/reward-lifecycle.service';
import { cardIssuances, supplierRequestDuration } from './reward-metrics';

export type IssuanceOutcome = 'issued' | 'failed' | 'skipped';

/** How long one run waits for a paused supplier (back-off, open circuit) before it gives its job back to the queue. */
const MAX_GATE_WAIT_MS = 30_000;

/** Issuance held back because the supplier asked us to back off or its circuit is open: retried later. */
export class SupplierPausedError extends Error {
  constructor(waitMs: number) {
    super(`The card supplier is paused (back-off or open circuit) for another ${Math.ceil(waitMs / 1000)} s; issuance retries later.`);
    this.name = 'SupplierPausedError';
  }
}

/**
 * Issues one card in three steps, none of which holds a transaction or a connection while the
 * supplier works (docs/rewards.md, Issuance):
 *
 * 1. mark: one statement takes the card's lease and records that the supplier is asked (IssuanceLease);
 * 2. call: the supplier is asked with the card id as reference, the order's idempotency key. A run
 *    that follows an earlier attempt (a crash, a timeout) looks the order up with `getCard` first
 *    and orders only if the supplier has none: never a blind second order;
 * 3. settle: RewardLifecycle's `issue` or `fail`, a short transaction of its own that locks the
 *    reward, then the card, and records ISSUED with its capture, or FAILED with the value given
 *    back. The capture is keyed by the card in the ledger, so it happens once whatever happens.
 */
@Injectable()
export class CardIssuanceService {
  private readonly logger = new Logger(CardIssuanceService.name);

  constructor(
    @Inject(GIFT_CARD_SUPPLIER) private readonly supplier: GiftCardSupplier,
    private readonly gate: SupplierGate,
    private readonly lease: IssuanceLease,
    private readonly lifecycle: RewardLifecycle,
  ) {}

  /**
   * Issues the card if it is still PENDING and no other run is at the supplier for it. A permanent
   * supplier error fails the card (its value is re-credited); a transient one (timeout, 5xx, 429)
   * leaves it PENDING and throws, so the queue, and after that the sweeper, ask again with the same
   * reference: after a timeout the supplier may well have issued the card, and only its answer may
   * settle it. While the supplier is paused, the card is not even marked (it can still be cancelled).
   */
  async issue(cardId: string): Promise<IssuanceOutcome> {
    if (!cardId) return 'skipped';
    const turn = await this.waitForTurn();

    // 1. Mark. Null when the card is settled or another run holds it.
    const card = await this.lease.take(cardId).catch(async (error: unknown) => {
      await this.gate.abandon(turn);
      throw error;
    });
    if (!card) {
      await this.gate.abandon(turn);
      return 'skipped';
    }

    // 2. Call, with the lease renewed while the supplier works.
    let answer: { card: SupplierCard } | { refusal: string };
    try {
      answer = await this.lease.hold(card, () => this.ask(card));
      await this.gate.succeeded(turn);
    } catch (error) {
      cardIssuances.inc({ outcome: 'retry' });
      this.logger.error({ cardId, err: error }, 'supplier did not settle the card; it stays PENDING and is asked again');
      await Promise.all([this.gate.failed(turn, error), this.lease.release(card)]).catch((cleanup: unknown) =>
        this.logger.warn({ cardId, err: cleanup }, 'could not release the issuance lease; it runs out by itself'),
      );
      throw error; // retried with backoff, then by the sweeper
    }

    // 3. Settle. Skipped when another run settled the card first (it took it over after this
    // run's lease ran out, and had the same answer for the same reference).
    let outcome: IssuanceOutcome;
    if ('refusal' in answer) {
      outcome = (await this.lifecycle.fail(card.id, answer.refusal)) ? 'failed' : 'skipped';
      if (outcome === 'failed') this.logger.warn({ cardId, rewardId: card.rewardId, reason: answer.refusal }, 'card issuance failed');
    } else {
      outcome = (await this.lifecycle.issue(card.id, answer.card)) ? 'issued' : 'skipped';
    }
    if (outcome !== 'skipped') cardIssuances.inc({ outcome });
    return outcome;
  }

  /** The supplier's answer for the card: a card, or a permanent refusal. Transient errors throw. */
  private async ask(card: MarkedCard): Promise<{ card: SupplierCard } | { refusal: string }> {
    try {
      if (card.issueAttempts > 1) {
        // An earlier run asked and never settled: the order may exist. Look it up before ordering.
        const found = await this.timed('getCard', () => this.supplier.getCard(card.id));
        if (found) return { card: found };
      }
      const issued = await this.timed('issueCard', () =>
        this.supplier.issueCard({ utid: card.utid, amountCents: card.amountCents, currency: card.currency, reference: card.id }),
      );
      return { card: issued };
    } catch (error) {
      if (error instanceof SupplierError && error.permanent) return { refusal: error.message };
      throw error;
    }
  }

  private async timed<T>(operation: 'issueCard' | 'getCard', call: () => Promise<T>): Promise<T> {
    const timer = supplierRequestDuration.startTimer({ operation });
    try {
      const result = await call();
      timer({ outcome: 'ok' });
      return result;
    } catch (error) {
      timer({ outcome: error instanceof SupplierError && error.permanent ? 'permanent_error' : 'transient_error' });
      throw error;
    }
  }

  /**
   * Waits while the supplier is paused (Retry-After back-off, open circuit), up to MAX_GATE_WAIT_MS;
   * then the job goes back to the queue with a transient error, and the card stays PENDING.
   */
  private async waitForTurn(): Promise<GateTurn> {
    const deadline = Date.now() + MAX_GATE_WAIT_MS;
    for (;;) {
      const turn = await this.gate.turn();
      if (turn.go) return turn;
      const left = deadline - Date.now();
      if (left <= 0) throw new SupplierPausedError(turn.waitMs);
      await sleep(Math.min(turn.waitMs, left, 5_000));
    }
  }
}
