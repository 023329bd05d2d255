import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The reward timeline: the webhook events that concern it (same `evt_` id), plus `reward.resent`. */
@Entity('reward_events')
export class RewardEventEntity {
  @Column({ type: 'bigint', generated: 'identity', generatedIdentity: 'ALWAYS', insert: false, update: false, select: false })
  seq: string;

  @PrimaryColumn('text')
  id: string;

  @Column({ name: 'reward_id', type: 'text' })
  rewardId: string;

  @Column('text')
  type: string;

  @Column({ type: 'jsonb', default: {} })
  metadata: Record<string, unknown>;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  createdAt: Date;
}
