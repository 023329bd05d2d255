import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('webhook_endpoints')
export class WebhookEndpointEntity {
  @PrimaryColumn('text')
  id: string;

  @Column({ name: 'account_id', type: 'text' })
  accountId: string;

  @Column('text')
  url: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  /** Subscribed event names; empty means every event. */
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  events: string[];

  @Column({ type: 'boolean', default: true })
  active: boolean;

  /** Why the endpoint was paused by us rather than by the merchant (e.g. the receiver answered 410). */
  @Column({ name: 'paused_reason', type: 'text', nullable: true })
  pausedReason: string | null;

  /** Never leaves the service after create/rotate; kept recoverable because HMAC needs it. */
  @Column('text')
  secret: string;

  @Column({ name: 'previous_secret', type: 'text', nullable: true })
  previousSecret: string | null;

  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true })
  previousSecretExpiresAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  updatedAt: Date;

  /** Since when attempts to it have been failing; cleared by a success, which brings its backlog forward. */
  @Column({ name: 'failing_since', type: 'timestamptz', nullable: true })
  failingSince: Date | null;
}
