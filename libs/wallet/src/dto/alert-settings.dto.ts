import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsDefined, IsInt, IsObject, Max, Min, ValidateIf, ValidateNested } from 'class-validator';
import { RequestExamples } from '@app/core';
import { CurrencyCode } from '../currencies';

/** The alert of one wallet (docs/alerts.md). */
export class LowBalanceThresholdDto {
  @CurrencyCode({ required: true, description: 'The wallet’s currency: one the account may hold (`GET /v1/wallets`).', example: 'USD' })
  currency: string;

  /**
   * Alert when the wallet's available balance falls below this, in the currency's minor units
   * (1 to 100,000,000). In a request, `null` is the same as leaving the currency out: no alert.
   */
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100_000_000, nullable: true, example: 50_000 })
  @ValidateIf((_, value) => value !== null)
  @IsInt()
  @Min(1)
  @Max(100_000_000)
  thresholdCents: number | null;
}

export class AlertSettingsDto {
  /** At most one entry per currency; a currency left out has no alert. */
  @ApiProperty({ type: [LowBalanceThresholdDto] })
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => LowBalanceThresholdDto)
  lowBalance: LowBalanceThresholdDto[];
}

/** The whole settings: what is left out is cleared. */
export class UpdateAlertSettingsDto {
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => AlertSettingsDto)
  alertSettings: AlertSettingsDto;
}

/** As stored: every entry has a threshold. */
export class LowBalanceAlertDto {
  /** ISO 4217 code of the wallet. */
  @ApiProperty({ example: 'USD' })
  currency: string;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100_000_000, example: 50_000 })
  thresholdCents: number;
}

export class StoredAlertSettingsDto {
  /** By currency code. */
  @ApiProperty({ type: [LowBalanceAlertDto] })
  lowBalance: LowBalanceAlertDto[];
}

export class AlertSettingsResponseDto {
  alertSettings: StoredAlertSettingsDto;
}

/** Request examples of PUT /v1/account/alert-settings (docs/api-contract.md, Examples). */
export const UPDATE_ALERT_SETTINGS_EXAMPLES: RequestExamples<UpdateAlertSettingsDto> = {
  thresholds: {
    summary: 'Alert below $500 in USD and €200 in EUR',
    value: { alertSettings: { lowBalance: [{ currency: 'USD', thresholdCents: 50_000 }, { currency: 'EUR', thresholdCents: 20_000 }] } },
  },
  none: { summary: 'No alerts', value: { alertSettings: { lowBalance: [] } } },
};
