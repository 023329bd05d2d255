import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintCents } from '@app/core';

/**
 * One per currency an account holds (docs/currencies.md): the primary one, in the account's own
 * currency, opened by a database trigger when the account is created; the others opened empty by
 * their first top-up or conversion. Its balances are the running sums of its ledger; only
 * WalletLedger writes them, by inserting transactions.
 */
@Entity('wallets')
export class WalletEntity {
  @PrimaryColumn({ name: 'account_id', type: 'text' })
  accountId: string;

  @PrimaryColumn({ type: 'character', length: 3 })
  currency: string;

  /** The account's own currency: GET /v1/wallet shows this wallet. Exactly one per account, fixed. */
  @Column({ name: 'is_primary', type: 'boolean', default: false })
  isPrimary: boolean;

  @Column({ name: 'available_cents', type: 'bigint', default: 0, transformer: bigintCents })
  availableCents: number;

  @Column({ name: 'reserved_cents', type: 'bigint', default: 0, transformer: bigintCents })
  reservedCents: number;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
