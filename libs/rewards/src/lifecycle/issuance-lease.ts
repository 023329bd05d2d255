import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RowLease } from '@app/core';
import type { RewardCardEntity } from '../entities/reward-card.entity';
import { HeldLeases, Lease } from './lease';

/**
 * How long a run's hold on a card lasts without renewal. The run's lease is renewed once it is a
 * third of that old while the supplier call lasts, so only a dead run's lease runs out; then another
 * run takes the card over (and looks the order up first).
 */
export const ISSUANCE_LEASE_MS = 15_000;

/**
 * The issuance lease of a card (docs/rewards.md, Issuance): `issuing_since` says when a run took it,
 * `issue_attempts` counts the runs. A settle (ISSUED, FAILED) ends it.
 */
export const CARD_ISSUANCE_LEASE = new RowLease({
  table: 'reward_cards',
  alias: 'c',
  attempt: 'issue_attempts',
  lease: { since: 'issuing_since' },
  pending: (c) => `${c}.status = 'PENDING' AND NOT ${c}.held_for_approval`,
  ms: ISSUANCE_LEASE_MS,
});

/** A card whose issuance lease a run holds: what the supplier is asked for, and which attempt this is. */
export type MarkedCard = Pick<RewardCardEntity, 'id' | 'rewardId' | 'utid' | 'amountCents' | 'currency' | 'issueAttempts'>;

interface MarkedRow {
  id: string;
  reward_id: string;
  utid: string;
  amount_cents: string;
  currency: string;
  issue_attempts: number;
}

/**
 * The lease on a card while one run asks the supplier for it (docs/rewards.md, Issuance). Taking it
 * is issuance's *mark*: it also records that the supplier is asked, committed on its own before
 * the call, so from then on only the supplier's answer settles the card and a cancel no longer
 * refunds it. Its statements are CARD_ISSUANCE_LEASE's, each one on its own (no transaction stays
 * open); they are pinned in libs/rewards/sql/issuance-lease.sql.
 */
@Injectable()
export class IssuanceLease implements Lease<MarkedCard> {
  private readonly leases: HeldLeases<MarkedCard>;

  constructor(dataSource: DataSource) {
    this.leases = new HeldLeases(CARD_ISSUANCE_LEASE, dataSource.manager, (card) => ({ id: card.id, attempt: card.issueAttempts }), {
      renewAfterMs: ISSUANCE_LEASE_MS / 3,
      logger: new Logger(IssuanceLease.name),
      what: 'card issuance',
    });
  }

  /**
   * Takes the lease of a PENDING card that no live run holds, counts the attempt and records the
   * first time the supplier is asked. Null when the card is settled, or another run holds a live
   * lease on it.
   */
  take(cardId: string): Promise<MarkedCard | null> {
    return this.leases.take<MarkedRow>(
      (statement) =>
        CARD_ISSUANCE_LEASE.takeOne(statement, {
          id: cardId,
          set: { supplier_requested_at: 'COALESCE(c.supplier_requested_at, clock_timestamp())' },
          returning: 'c.id, c.reward_id, c.utid, c.amount_cents, c.currency, c.issue_attempts',
        }),
      (row) => ({
        id: row.id,
        rewardId: row.reward_id,
        utid: row.utid,
        amountCents: Number(row.amount_cents),
        currency: row.currency,
        issueAttempts: row.issue_attempts,
      }),
    );
  }

  /** Keeps the lease of a run whose supplier call is taking long, if that run still holds it (what `hold`'s heartbeat sends). */
  renew(card: MarkedCard): Promise<void> {
    return this.leases.renew(card);
  }

  /** Gives the lease up after a transient failure, so the next retry need not wait for it to run out. */
  release(card: MarkedCard): Promise<void> {
    return this.leases.release(card);
  }

  /** Runs `work` (the supplier call) while the heartbeat renews the lease once it is a third of its length old. */
  hold<T>(card: MarkedCard, work: () => Promise<T>): Promise<T> {
    return this.leases.during(card, work);
  }
}
