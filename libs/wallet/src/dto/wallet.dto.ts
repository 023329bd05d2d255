import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { CreatedQuery, CursorPageQueryDto, NoControlCharacters, PageSizeQuery } from '@app/core';
import { CurrencyCode } from '../currencies';
import { WALLET_RELATED_TYPES, WALLET_TRANSACTION_KINDS, WalletTransactionEntity, WalletTransactionKind } from '../entities/wallet-transaction.entity';
import { WalletEntity } from '../entities/wallet.entity';

export class WalletDto {
  /** Cents that can be spent on new rewards. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  availableCents: number;
  /** Cents held for rewards not yet turned into cards, and for cards being issued. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  reservedCents: number;
  /** ISO 4217 currency of the wallet (GET /v1/wallet: the account's primary currency). */
  currency: string;
}

export class WalletResponseDto {
  wallet: WalletDto;
}

export class WalletListDto {
  /** One wallet per currency the account holds: the primary one first (listed even when empty), then by currency code. */
  wallets: WalletDto[];
}

export class WalletTransactionDto {
  /** Transaction identifier (`wtx_`). */
  id: string;

  /** The currency of the wallet it moved. */
  currency: string;

  /**
   * TOPUP (available +), HOLD (available -, reserved +), CAPTURE (reserved -), RELEASE (reserved -, available +),
   * CONVERSION_OUT (available -, the source wallet of a conversion), CONVERSION_IN (available +, its target wallet).
   */
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

  /** Id of the top-up, reward, card or conversion. */
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

  @CurrencyCode({ required: false, description: 'Only the transactions of this currency’s wallet (default: every wallet).' })
  currency?: string;

  @CreatedQuery('gte', '2026-11-01T00:00:00Z')
  created_gte?: string;

  @CreatedQuery('lt', '2026-12-01T00:00:00Z')
  created_lt?: string;

  /** Only transactions of this kind. */
  @ApiPropertyOptional({ enum: WALLET_TRANSACTION_KINDS, example: 'HOLD' })
  @IsOptional()
  @IsIn(WALLET_TRANSACTION_KINDS)
  kind?: WalletTransactionKind;

  /** Only the movements of this top-up, reward, card or conversion (its id). */
  @ApiPropertyOptional({ example: 'rw_39FOvU37D5B21txEfKDOpo', maxLength: 100 })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @NoControlCharacters()
  related_id?: string;
}

export function toWalletDto(wallet: WalletEntity): WalletDto {
  return { availableCents: wallet.availableCents, reservedCents: wallet.reservedCents, currency: wallet.currency };
}

export function toWalletTransactionDto(tx: WalletTransactionEntity): WalletTransactionDto {
  return {
    id: tx.id,
    currency: tx.currency,
    kind: tx.kind,
    availableDeltaCents: tx.availableDeltaCents,
    reservedDeltaCents: tx.reservedDeltaCents,
    description: tx.description,
    relatedType: tx.relatedType,
    relatedId: tx.relatedId,
    createdAt: tx.createdAt.toISOString(),
  };
}
