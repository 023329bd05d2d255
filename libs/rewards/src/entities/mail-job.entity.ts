import { Column, Entity, PrimaryColumn } from 'typeorm';

export type DeliveryChannel = 'email' | 'sms';

/**
 * An e-mail (or a text message: `channel`) to send, written in the transaction that asks for it; the queue job only carries its
 * id, and a sweeper re-enqueues rows left PENDING (the process died before enqueueing).
 */
@Entity('mail_jobs')
export class MailJobEntity {
  @PrimaryColumn('text')
  id: string;

  @Column({ name: 'reward_id', type: 'text' })
  rewardId: string;

  @Column('text')
  /** `reminder`: a reminder of a reward not used up (docs/delivery.md, Reminders). */
  kind: 'reward' | 'resend' | 'reminder';

  /** What is sent: the reward e-mail or its text message (docs/delivery.md, SMS). */
  @Column({ type: 'text', default: 'email' })
  channel: DeliveryChannel;

  @Column('text')
  status: 'PENDING' | 'SENT' | 'FAILED';

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  /** While set and in the future, one worker is sending it: a duplicate job skips it. */
  @Column({ name: 'leased_until', type: 'timestamptz', nullable: true })
  leasedUntil: Date | null;

  /** After a temporary refusal: when the next attempt is due, on the service's clock (docs/delivery.md). */
  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt: Date | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  createdAt: Date;

  @Column({ name: 'sent_at', type: 'timestamptz', nullable: true })
  sentAt: Date | null;
}
