import { bigintCents } from '@app/core';
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity('accounts')
export class AccountEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  name: string;

  /** The wallet currency; every reward of the account is in it. */
  @Column({ type: 'character', length: 3, default: 'USD' })
  currency: string;

  @Column({ name: 'sender_name', type: 'text', nullable: true })
  senderName: string | null;

  @Column({ name: 'logo_url', type: 'text', nullable: true })
  logoUrl: string | null;

  @Column({ name: 'brand_color', type: 'text', nullable: true })
  brandColor: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  /** Sends worth this much or more (primary currency) wait for approval (docs/controls.md); null: none do. */
  @Column({ name: 'approval_threshold_cents', type: 'bigint', nullable: true, transformer: bigintCents })
  approvalThresholdCents: number | null;

  /** Reward reminders (docs/delivery.md, Reminders): days after delivery, ascending, at most 3. */
  @Column({ name: 'reminder_after_days', type: 'smallint', array: true, default: () => "'{}'" })
  reminderAfterDays: number[];

  /** Days before a reward's expiry for its reminder; null: none. */
  @Column({ name: 'reminder_before_expiry_days', type: 'smallint', nullable: true })
  reminderBeforeExpiryDays: number | null;

  /** When the reminder settings were last saved (reminders due before then are not sent). */
  @Column({ name: 'reminder_settings_at', type: 'timestamptz', nullable: true })
  reminderSettingsAt: Date | null;
}
