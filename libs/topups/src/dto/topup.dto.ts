import { ApiProperty } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { CursorPageQueryDto, PageSizeQuery, RequestExamples } from '@app/core';
import { CurrencyCode } from '@app/wallet';
import { PAYMENT_PROVIDERS, TOPUP_STATUSES, TopupEntity } from '../entities/topup.entity';

export class CreateTopupDto {
  /** Amount to add to the wallet, in cents of its currency: 100 (1.00) to 100,000,000. */
  @IsInt()
  @Min(100)
  @Max(100_000_000)
  @ApiProperty({ type: 'integer' })
  amountCents: number;

  @CurrencyCode({
    required: false,
    description: 'The wallet to fund (default: the primary one). A currency the catalog offers; its wallet opens with its first top-up.',
  })
  currency?: string;
}

/** Request examples of POST /v1/topups (docs/api-contract.md, Examples). */
export const CREATE_TOPUP_EXAMPLES: RequestExamples<CreateTopupDto> = {
  fiveHundred: { summary: 'Add 500.00 to the wallet', value: { amountCents: 50_000 } },
};

export class TopupDto {
  /** Top-up identifier (`tu_`). */
  id: string;
  @ApiProperty({ type: 'integer', minimum: 1 })
  amountCents: number;
  currency: string;

  @ApiProperty({ enum: PAYMENT_PROVIDERS })
  provider: string;

  /** PENDING until checkout completes; SUCCEEDED once the wallet is credited; FAILED or EXPIRED otherwise. */
  @ApiProperty({ enum: TOPUP_STATUSES })
  status: string;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  completedAt: string | null;
}

export class CreateTopupResponseDto {
  topup: TopupDto;

  /** Where the payer completes the payment (stripe mode); null in fake mode, where the top-up has settled already. */
  @ApiProperty({ type: String, nullable: true, format: 'uri' })
  checkoutUrl: string | null;

  @ApiProperty({ enum: PAYMENT_PROVIDERS })
  paymentsMode: string;
}

export class TopupListDto {
  topups: TopupDto[];
  @ApiProperty({ type: 'integer', minimum: 0 })
  total: number;
  /** Whether more top-ups follow: older ones, or newer ones when the page was asked with `ending_before`. */
  hasMore: boolean;
}

export class TopupsQueryDto extends CursorPageQueryDto {
  @PageSizeQuery(25)
  page_size: number = 25;
}

export function toTopupDto(topup: TopupEntity): TopupDto {
  return {
    id: topup.id,
    amountCents: topup.amountCents,
    currency: topup.currency,
    provider: topup.provider,
    status: topup.status,
    createdAt: topup.createdAt.toISOString(),
    completedAt: topup.completedAt ? topup.completedAt.toISOString() : null,
  };
}
