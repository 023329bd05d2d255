import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The webhook event kinds (docs/webhooks.md, Events), plus the on-demand `ping`. */
export const EVENT_TYPES = [
  'reward.created',
  'reward.sent',
  'reward.opened',
  'reward.partially_redeemed',
  'reward.redeemed',
  'reward.expired',
  'reward.canceled',
  'reward.approval_required',
  'reward.delivery_failed',
  'reward.reminded',
  'card.issued',
  'card.failed',
  'wallet.credited',
  'wallet.low_balance',
  'catalog.updated',
  'report.completed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * A domain event, written in the same transaction as the change that causes it (the outbox), so an
 * event exists exactly when its change committed. The webhooks module fans these out.
 */
@Entity('events')
export class OutboxEventEntity {
  @Column({ type: 'bigint', generated: 'identity', generatedIdentity: 'ALWAYS', insert: false, update: false, select: false })
  seq: string;

  @PrimaryColumn('text')
  id: string;

  @Column({ name: 'account_id', type: 'text' })
  accountId: string;

  @Column('text')
  type: EventType;

  @Column('jsonb')
  data: Record<string, unknown>;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  createdAt: Date;

  /** When the fan-out turned it into deliveries; null until then. */
  @Column({ name: 'dispatched_at', type: 'timestamptz', nullable: true })
  dispatchedAt: Date | null;
}
