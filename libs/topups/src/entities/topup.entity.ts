import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintCents } from '@app/core';

export const TOPUP_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED', 'EXPIRED'] as const;
export type TopupStatus = (typeof TOPUP_STATUSES)[number];
export const PAYMENT_PROVIDERS = ['fake', 'stripe'] as const;
export type PaymentProviderName = (typeof PAYMENT_PROVIDERS)[number];

@Entity('topups')
export class TopupEntity {
  @PrimaryColumn('text')
  id: string;

  @Column({ name: 'account_id', type: 'text' })
  accountId: string;

  @Column({ name: 'amount_cents', type: 'bigint', transformer: bigintCents })
  amountCents: number;

  @Column({ type: 'character', length: 3 })
  currency: string;

  @Column('text')
  provider: PaymentProviderName;

  @Column('text')
  status: TopupStatus;

  @Column({ name: 'checkout_session_id', type: 'text', nullable: true })
  checkoutSessionId: string | null;

  @Column({ name: 'checkout_url', type: 'text', nullable: true })
  checkoutUrl: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  createdAt: Date;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;
}
