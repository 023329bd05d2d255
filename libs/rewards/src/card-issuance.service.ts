import { Inject, Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { GateTurn, GIFT_CARD_SUPPLIER, GiftCardSupplier, SupplierCard, SupplierError, SupplierGate } from '@app/catalog';
import { MarkedCard, RewardLifecycle } from './lifecycle/reward-lifecycle.service';
import { cardIssuances, supplierRequestDuration } from './reward-metrics';

export type IssuanceOutcome = 'issued' | 'failed' | 'skipped';

/**
 * How long a run's hold on a card lasts without renewal. The run renews it every third of that
 * while the supplier call lasts, so only a dead run's lease runs out; then another run takes the
 * card over (and looks the order up first).
 */
export const ISSUANCE_LEASE_MS = 15_000;
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
 * 1. mark: one statement takes the card's lease and records that the supplier is asked;
 * 2. call: the supplier is asked with the card id as reference, the order's idempotency key. A run
 *    that follows an earlier attempt (a crash, a timeout) looks the order up with `getCard` first
 *    and orders only if the supplier has none: never a blind second order;
 * 3. settle: a short transaction locks the reward, then the card, and records ISSUED with its
 *    capture, or FAILED with the value given back. The capture is keyed by the card in the ledger,
 *    so it happens once whatever happens.
 */
@Injectable()
export class CardIssuanceService {
  private readonly logger = new Logger(CardIssuanceService.name);

  constructor(
    private readonly dataSource: DataSource,
    @Inject(GIFT_CARD_SUPPLIER) private readonly supplier: GiftCardSupplier,
    private readonly lifecycle: RewardLifecycle,
    private readonly gate: SupplierGate,
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
    const marked = await this.lifecycle.markForIssuance(cardId, ISSUANCE_LEASE_MS).catch(async (error: unknown) => {
      await this.gate.abandon(turn);
      throw error;
    });
    if (!marked) {
      await this.gate.abandon(turn);
      return 'skipped';
    }

    let answer: { card: SupplierCard } | { refusal: string };
    try {
      answer = await this.withLease(marked, () => this.ask(marked));
      await this.gate.succeeded(turn);
    } catch (error) {
      cardIssuances.inc({ outcome: 'retry' });
      this.logger.error({ cardId, err: error }, 'supplier did not settle the card; it stays PENDING and is asked again');
      await Promise.all([this.gate.failed(turn, error), this.lifecycle.releaseIssuance(marked)]).catch((cleanup: unknown) =>
        this.logger.warn({ cardId, err: cleanup }, 'could not release the issuance lease; it runs out by itself'),
      );
      throw error; // retried with backoff, then by the sweeper
    }

    const outcome = await this.settle(cardId, answer);
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

  /** Runs `work` while renewing the card's lease, so a long supplier call is not taken for a dead one. */
  private async withLease<T>(card: MarkedCard, work: () => Promise<T>): Promise<T> {
    const renew = setInterval(() => {
      this.lifecycle.renewIssuance(card).catch((error: unknown) => this.logger.warn({ cardId: card.id, err: error }, 'lease renewal failed'));
    }, ISSUANCE_LEASE_MS / 3);
    try {
      return await work();
    } finally {
      clearInterval(renew);
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
   * Settle: records the answer if the card is still PENDING. Another run may have settled it first
   * (it took the card over after this run's lease ran out); it had the same answer for the same
   * reference, so this one has nothing left to do.
   */
  private settle(cardId: string, answer: { card: SupplierCard } | { refusal: string }): Promise<IssuanceOutcome> {
    return this.dataSource.transaction(async (manager) => {
      const locked = await this.lifecycle.lockPendingCard(manager, cardId);
      if (!locked) return 'skipped';
      if ('refusal' in answer) {
        this.logger.warn({ cardId, rewardId: locked.reward.id, reason: answer.refusal }, 'card issuance failed');
        await this.lifecycle.fail(manager, locked, answer.refusal);
        return 'failed';
      }
      await this.lifecycle.issue(manager, locked, answer.card);
      return 'issued';
    });
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
