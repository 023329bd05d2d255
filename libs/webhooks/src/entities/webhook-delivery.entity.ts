import { Column, Entity, PrimaryColumn } from 'typeorm';

export const DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One event for one endpoint: the exact body to send, and where its attempts stand. */
@Entity('webhook_deliveries')
export class WebhookDeliveryEntity {
  @Column({ type: 'bigint', generated: 'identity', generatedIdentity: 'ALWAYS', insert: false, update: false, select: false })
  seq: string;

  @PrimaryColumn('text')
  id: string;

  @Column({ name: 'endpoint_id', type: 'text' })
  endpointId: string;

  @Column({ name: 'account_id', type: 'text' })
  accountId: string;

  @Column({ name: 'event_id', type: 'text' })
  eventId: string;

  @Column({ name: 'event_type', type: 'text' })
  eventType: string;

  /** Set on a delivery made by a replay (`wrp_`): the event sent again, with its own id (docs/webhooks.md, Replay). */
  @Column({ name: 'replay_id', type: 'text', nullable: true })
  replayId: string | null;

  /** The body as sent (json keeps the exact text; parsing and re-serialising it gives the same bytes). */
  @Column('json')
  payload: Record<string, unknown>;

  @Column({ type: 'text', default: 'PENDING' })
  status: DeliveryStatus;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'response_status', type: 'integer', nullable: true })
  responseStatus: number | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  createdAt: Date;

  @Column({ name: 'last_attempt_at', type: 'timestamptz', nullable: true })
  lastAttemptAt: Date | null;

  /**
   * How long the attempt that succeeded took; set only on a success, which is kept on this row rather
   * than as an attempt row of its own (docs/webhooks.md, Attempts).
   */
  @Column({ name: 'last_attempt_duration_ms', type: 'integer', nullable: true })
  lastAttemptDurationMs: number | null;

  /** When the next attempt is due; null when none is (finished, or parked while the endpoint is paused). */
  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt: Date | null;

  /** While an attempt is under way: when its lease ends unless the worker renews it (docs/webhooks.md, Delivery). */
  @Column({ name: 'leased_until', type: 'timestamptz', nullable: true })
  leasedUntil: Date | null;

  /** The earliest retry the receiver asked for with Retry-After. */
  @Column({ name: 'retry_not_before', type: 'timestamptz', nullable: true })
  retryNotBefore: Date | null;
}
