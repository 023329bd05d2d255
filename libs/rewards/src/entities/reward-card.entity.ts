import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintCents } from '@app/core';

export const CARD_STATUSES = ['PENDING', 'ISSUED', 'FAILED', 'CANCELED'] as const;
export type CardStatus = (typeof CARD_STATUSES)[number];
export const CREDENTIAL_TYPES = ['text', 'url', 'barcode', 'date'] as const;

export interface StoredCredential {
  label: string;
  value: string;
  type: (typeof CREDENTIAL_TYPES)[number];
}

/**
 * A gift card of a reward. Its id is the supplier reference, so issuing it twice yields one card.
 * Brand and item names are a snapshot of the catalog at send (or pick) time.
 */
@Entity('reward_cards')
export class RewardCardEntity {
  @Column({ type: 'bigint', generated: 'identity', generatedIdentity: 'ALWAYS', insert: false, update: false, select: false })
  seq: string;

  @PrimaryColumn('text')
  id: string;

  @Column({ name: 'reward_id', type: 'text' })
  rewardId: string;

  @Column({ name: 'account_id', type: 'text' })
  accountId: string;

  @Column('text')
  utid: string;

  @Column({ name: 'reward_name', type: 'text' })
  rewardName: string;

  @Column({ name: 'brand_key', type: 'text' })
  brandKey: string;

  @Column({ name: 'brand_name', type: 'text' })
  brandName: string;

  @Column({ name: 'brand_image_url', type: 'text', nullable: true })
  brandImageUrl: string | null;

  @Column({ name: 'amount_cents', type: 'bigint', transformer: bigintCents })
  amountCents: number;

  @Column({ type: 'character', length: 3 })
  currency: string;

  @Column('text')
  status: CardStatus;

  @Column({ name: 'redemption_instructions', type: 'text', nullable: true })
  redemptionInstructions: string | null;

  /**
   * The credentials (gift-card codes are money) sealed under the key ring for this card and account
   * (docs/secrets.md); null until ISSUED. Only RewardRepository seals and opens it.
   */
  @Column({ name: 'credentials', type: 'text', nullable: true })
  sealedCredentials: string | null;

  /** The credentials in clear, filled in by RewardRepository when it loads the card; never a column. */
  credentials: StoredCredential[] | null;

  @Column({ name: 'failure_reason', type: 'text', nullable: true })
  failureReason: string | null;

  /**
   * Set, and committed, before the supplier is first asked for this card. From then on only the
   * supplier's answer settles the card: a cancel answers 422 instead of refunding a card that may
   * exist.
   */
  @Column({ name: 'supplier_requested_at', type: 'timestamptz', nullable: true })
  supplierRequestedAt: Date | null;

  /**
   * The lease of the issuance run that is at the supplier for this card, refreshed while the call
   * lasts; null when no run is. A run whose lease ran out is presumed dead and another may take over.
   */
  @Column({ name: 'issuing_since', type: 'timestamptz', nullable: true })
  issuingSince: Date | null;

  /** Issuance runs that asked the supplier for this card; after the first, a run looks the order up first. */
  @Column({ name: 'issue_attempts', type: 'integer', default: 0 })
  issueAttempts: number;

  @Column({ name: 'issued_at', type: 'timestamptz', nullable: true })
  issuedAt: Date | null;

  /** True while its reward's send waits for approval: the card is not ordered until it is approved (docs/controls.md). */
  @Column({ name: 'held_for_approval', type: 'boolean', default: false })
  heldForApproval: boolean;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  createdAt: Date;
}
