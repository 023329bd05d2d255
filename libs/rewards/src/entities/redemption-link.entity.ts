import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A redemption link token, stored only as its SHA-256. A reward has one per channel use: the link
 * in the create response, and one per e-mail sent, all valid; none can be rebuilt from the database.
 */
@Entity('redemption_links')
export class RedemptionLinkEntity {
  @PrimaryColumn({ name: 'token_hash', type: 'text' })
  tokenHash: string;

  @Column({ name: 'reward_id', type: 'text' })
  rewardId: string;

  @Column('text')
  channel: 'api' | 'email';

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  createdAt: Date;
}
