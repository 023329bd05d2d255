import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintCents } from '@app/core';

export const WALLET_TRANSACTION_KINDS = ['TOPUP', 'HOLD', 'CAPTURE', 'RELEASE', 'CONVERSION_OUT', 'CONVERSION_IN'] as const;
export type WalletTransactionKind = (typeof WALLET_TRANSACTION_KINDS)[number];
export const WALLET_RELATED_TYPES = ['topup', 'reward', 'card', 'conversion'] as const;
export type WalletRelatedType = (typeof WALLET_RELATED_TYPES)[number];

/** One balance change. Append-only: the database refuses updates and deletes. */
@Entity('wallet_transactions')
export class WalletTransactionEntity {
  /** Insertion order, for a stable newest-first listing. */
  @Column({ type: 'bigint', generated: 'identity', generatedIdentity: 'ALWAYS', insert: false, update: false })
  seq: string;

  @PrimaryColumn('text')
  id: string;

  @Column({ name: 'account_id', type: 'text' })
  accountId: string;

  /** The wallet the row moves: (account, currency). */
  @Column({ type: 'character', length: 3 })
  currency: string;

  @Column('text')
  kind: WalletTransactionKind;

  @Column({ name: 'available_delta_cents', type: 'bigint', transformer: bigintCents })
  availableDeltaCents: number;

  @Column({ name: 'reserved_delta_cents', type: 'bigint', transformer: bigintCents })
  reservedDeltaCents: number;

  @Column({ type: 'text', default: '' })
  description: string;

  @Column({ name: 'related_type', type: 'text' })
  relatedType: WalletRelatedType;

  @Column({ name: 'related_id', type: 'text' })
  relatedId: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  createdAt: Date;
}
