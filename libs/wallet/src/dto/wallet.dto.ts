import { ApiProperty } from '@nestjs/swagger';
import { CursorPageQueryDto, PageSizeQuery } from '@app/core';
import { WALLET_RELATED_TYPES, WALLET_TRANSACTION_KINDS, WalletTransactionEntity } from '../entities/wallet-transaction.entity';
import { WalletEntity } from '../entities/wallet.entity';

export class WalletDto {
  /** Cents that can be spent on new rewards. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  availableCents: number;
  /** Cents held for rewards not yet turned into cards, and for cards being issued. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  reservedCents: number;
  /** ISO 4217 currency of the wallet (the account's). */
  currency: string;
}

export class WalletResponseDto {
  wallet: WalletDto;
}

export class WalletTransactionDto {
  /** Transaction identifier (`wtx_`). */
  id: string;

  /** TOPUP (available +), HOLD (available -, reserved +), CAPTURE (reserved -), RELEASE (reserved -, available +). */
  @ApiProperty({ enum: WALLET_TRANSACTION_KINDS })
  kind: string;

  @ApiProperty({ type: 'integer' })
  availableDeltaCents: number;
  @ApiProperty({ type: 'integer' })
  reservedDeltaCents: number;
  description: string;

  /** What the movement concerns. */
  @ApiProperty({ enum: WALLET_RELATED_TYPES })
  relatedType: string;

  /** Id of the top-up, reward or card. */
  relatedId: string;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: string;
}

export class WalletTransactionListDto {
  transactions: WalletTransactionDto[];
  /** Number of transactions across all pages. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  total: number;
  /** Whether more transactions follow: older ones, or newer ones when the page was asked with `ending_before`. */
  hasMore: boolean;
}

export class WalletTransactionsQueryDto extends CursorPageQueryDto {
  @PageSizeQuery(50)
  page_size: number = 50;
}

export function toWalletDto(wallet: WalletEntity): WalletDto {
  return { availableCents: wallet.availableCents, reservedCents: wallet.reservedCents, currency: wallet.currency };
}

export function toWalletTransactionDto(tx: WalletTransactionEntity): WalletTransactionDto {
  return {
    id: tx.id,
    kind: tx.kind,
    availableDeltaCents: tx.availableDeltaCents,
    reservedDeltaCents: tx.reservedDeltaCents,
    description: tx.description,
    relatedType: tx.relatedType,
    relatedId: tx.relatedId,
    createdAt: tx.createdAt.toISOString(),
  };
}
