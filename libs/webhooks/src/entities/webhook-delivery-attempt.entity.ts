import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One HTTP attempt of a delivery, kept for the merchant debugging a receiver. */
@Entity('webhook_delivery_attempts')
export class WebhookDeliveryAttemptEntity {
  @PrimaryColumn({ name: 'delivery_id', type: 'text' })
  deliveryId: string;

  @PrimaryColumn('integer')
  attempt: number;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt: Date;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs: number;

  @Column('boolean')
  succeeded: boolean;

  @Column({ name: 'response_status', type: 'integer', nullable: true })
  responseStatus: number | null;

  @Column({ type: 'text', nullable: true })
  error: string | null;
}
