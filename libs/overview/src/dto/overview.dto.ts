import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional } from 'class-validator';
import { WalletDto } from '@app/wallet';

export class OverviewWalletDto {
  @ApiProperty({ type: 'integer', minimum: 0 })
  availableCents: number;
  @ApiProperty({ type: 'integer', minimum: 0 })
  reservedCents: number;
  currency: string;
}

export class OverviewStatsDto {
  /** Rewards ever sent by the account. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  totalRewards: number;
  /** Rewards that still have value a recipient can use (SENT, OPENED, PARTIALLY_REDEEMED). */
  @ApiProperty({ type: 'integer', minimum: 0 })
  activeRewards: number;
  /** Rewards fully turned into cards. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  redeemedRewards: number;
  /** Value of all cards issued in the primary currency, in cents (`statsByCurrency` has every currency). */
  @ApiProperty({ type: 'integer', minimum: 0 })
  totalIssuedCents: number;
}

export class CurrencyStatsDto {
  /** ISO 4217 currency of the figures. */
  currency: string;
  /** Value of all cards issued in this currency, in cents. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  totalIssuedCents: number;
  /** Value the currency's unfinished rewards still hold for their recipients (their remaining value), in cents. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  activeValueCents: number;
}

export class AccountOverviewDto {
  /** The primary wallet (as GET /v1/wallet). */
  wallet: OverviewWalletDto;
  stats: OverviewStatsDto;
  /** Every wallet, as GET /v1/wallets: the primary one first, then by currency code. */
  wallets: WalletDto[];
  /** Issued and active value per currency, one entry per wallet, in the order of `wallets`. */
  statsByCurrency: CurrencyStatsDto[];
}

export class DailyOverviewQueryDto {
  /** How many UTC days, ending today: 30 or 90. */
  @ApiPropertyOptional({ type: 'integer', enum: [30, 90], default: 30, example: 30 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @IsIn([30, 90])
  days: number = 30;
}

export class SentDayDto {
  /** The UTC day, `YYYY-MM-DD`. */
  @ApiProperty({ type: String, format: 'date' })
  date: string;
  /** Face value of the rewards sent that day in this currency (cancelled or expired later included), in cents. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  sentCents: number;
}

export class SentSeriesDto {
  /** ISO 4217 currency of the series: one per wallet the account holds, the primary first. */
  currency: string;
  /** Every day of the window, oldest first, days without sends as 0. */
  days: SentDayDto[];
}

export class DailyOverviewDto {
  @ApiProperty({ type: 'integer', enum: [30, 90] })
  days: number;
  series: SentSeriesDto[];
}
