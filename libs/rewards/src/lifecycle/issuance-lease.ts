import { Injectable, Logger } from '@nestjs/common';
import type { RewardCardEntity } from '../entities/reward-card.entity';
import { Lease, whileRenewed } from './lease';
import { RewardRepository } from './reward.repository';

/**
 * How long a run's hold on a card lasts without renewal. The run renews it every third of that
 * while the supplier call lasts, so only a dead run's lease runs out; then another run takes the
 * card over (and looks the order up first).
 */
export const ISSUANCE_LEASE_MS = 15_000;

/** A card whose issuance lease a run holds: what the supplier is asked for, and which attempt this is. */
export type MarkedCard = Pick<RewardCardEntity, 'id' | 'rewardId' | 'utid' | 'amountCents' | 'currency' | 'issueAttempts'>;

/**
 * The lease on a card while one run asks the supplier for it (docs/rewards.md, Issuance). Taking it
 * is issuance's *mark*: it also records that the supplier is asked, committed on its own before
 * the call, so from then on only the supplier's answer settles the card and a cancel no longer
 * refunds it. Its SQL is RewardRepository's (`takeCardLease` and the two next to it).
 */
@Injectable()
export class IssuanceLease implements Lease<MarkedCard> {
  private readonly logger = new Logger(IssuanceLease.name);

  constructor(private readonly rewards: RewardRepository) {}

  /** Null when the card is settled, or another run holds a live lease on it. */
  take(cardId: string): Promise<MarkedCard | null> {
    return this.rewards.takeCardLease(cardId, ISSUANCE_LEASE_MS);
  }

  /** Keeps the lease of a run whose supplier call is taking long, so no other run takes the card over. */
  renew(card: MarkedCard): Promise<void> {
    return this.rewards.renewCardLease(card);
  }

  /** Gives the lease up after a transient failure, so the next retry need not wait for it to run out. */
  release(card: MarkedCard): Promise<void> {
    return this.rewards.releaseCardLease(card);
  }

  /** Runs `work` (the supplier call) while renewing the lease every third of its length. */
  hold<T>(card: MarkedCard, work: () => Promise<T>): Promise<T> {
    return whileRenewed(this, card, ISSUANCE_LEASE_MS / 3, this.logger, work);
  }
}
