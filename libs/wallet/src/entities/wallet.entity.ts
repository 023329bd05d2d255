import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintCents } from '@app/core';

/**
 * One per account, opened by a database trigger when the account is created. Its balances are
 * the running sums of its ledger; only WalletLedger writes them, by inserting transactions.
 */
@Entity('wallets')
export class WalletEntity {
  @PrimaryColumn({ name: 'account_id', type: 'text' })
  accountId: string;

  @Column({ type: 'character', length: 3 })
  currency: string;

  @Column({ name: 'available_cents', type: 'bigint', default: 0, transformer: bigintCents })
  availableCents: number;

  @Column({ name: 'reserved_cents', type: 'bigint', default: 0, transformer: bigintCents })
  reservedCents: number;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
