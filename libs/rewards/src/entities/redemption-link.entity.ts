import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A reward's redemption link token (docs/redemption.md, One link): found by its SHA-256, and kept
 * sealed under the key ring (docs/secrets.md) so the create response's link can be read back for
 * every e-mail and for `include_credentials=true`. Rows without a sealed token are the per-e-mail
 * links of rewards sent before a reward had one link; they keep opening their reward.
 */
@Entity('redemption_links')
export class RedemptionLinkEntity {
  @PrimaryColumn({ name: 'token_hash', type: 'text' })
  tokenHash: string;

  @Column({ name: 'reward_id', type: 'text' })
  rewardId: string;

  @Column({ name: 'account_id', type: 'text' })
  accountId: string;

  @Column('text')
  channel: 'api' | 'email';

  @Column({ name: 'token_sealed', type: 'text', nullable: true })
  tokenSealed: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  createdAt: Date;
}
