import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { NoControlCharacters, RequestExamples } from '@app/core';
import { CurrencyCode } from '@app/wallet';

// Positive, with 8 decimals at most (the smallest rate there is).
const RATE = { type: Number, minimum: 0.00000001, example: 0.92 };

export class FxRatesQueryDto {
  @CurrencyCode({ required: false, description: 'Only the rates from this currency (default: every pair of supported currencies).', example: 'USD' })
  from?: string;
}

export class FxRateDto {
  /** The currency converted from. */
  from: string;
  /** The currency converted to. */
  to: string;
  /** Units of `to` per one unit of `from`, as a merchant gets them: the mid rate less `FX_MARKUP_BPS`, rounded down to 8 decimals. */
  @ApiProperty(RATE)
  rate: number;
  /** The rate source's mid rate, without markup. */
  @ApiProperty(RATE)
  midRate: number;
  /** When the rate source last gave this rate. Rates older than 24 h are not used for conversions (503). */
  @ApiProperty({ type: String, format: 'date-time' })
  asOf: string;
}

export class FxRateListDto {
  rates: FxRateDto[];
}

export class CreateFxQuoteDto {
  @CurrencyCode({ required: true, description: 'The currency to convert from (its wallet pays).', example: 'USD' })
  from: string;

  @CurrencyCode({ required: true, description: 'The currency to convert to; not `from`.', example: 'GBP' })
  to: string;

  /** How much of `to` to get, in its cents: 1 to 100,000,000. */
  @IsInt()
  @Min(1)
  @Max(100_000_000)
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100_000_000 })
  toAmountCents: number;
}

/** Request examples of POST /v1/fx/quotes (docs/api-contract.md, Examples). */
export const CREATE_FX_QUOTE_EXAMPLES: RequestExamples<CreateFxQuoteDto> = {
  usdToGbp: { summary: 'What 100.00 GBP costs in USD', value: { from: 'USD', to: 'GBP', toAmountCents: 10_000 } },
};

export class FxQuoteDto {
  /** Quote identifier (`fxq_`). */
  id: string;
  from: string;
  to: string;
  /** Units of `to` per one unit of `from`, markup included; the conversion applies exactly this rate. */
  @ApiProperty(RATE)
  rate: number;
  /** The mid rate the quote was made from, without markup. */
  @ApiProperty(RATE)
  midRate: number;
  /** What the conversion takes from the `from` wallet: `ceil(toAmountCents / rate)`, never a cent in the merchant's favour. */
  @ApiProperty({ type: 'integer', minimum: 1 })
  fromAmountCents: number;
  /** What the conversion puts into the `to` wallet. */
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100_000_000 })
  toAmountCents: number;
  /** The quote binds for 60 s: until then `POST /v1/fx/conversions` converts at it; after, it is 422. */
  @ApiProperty({ type: String, format: 'date-time' })
  expiresAt: string;
}

export class FxQuoteResponseDto {
  quote: FxQuoteDto;
}

export class CreateFxConversionDto {
  /** The quote to convert at (`fxq_`), made by this account less than 60 s ago and not used yet. */
  @IsString()
  @MaxLength(100)
  @NoControlCharacters()
  @ApiProperty({ maxLength: 100, example: 'fxq_3hV8c2QmZkR1pT6wYbN0aD' })
  quoteId: string;
}

/** Request examples of POST /v1/fx/conversions (docs/api-contract.md, Examples). */
export const CREATE_FX_CONVERSION_EXAMPLES: RequestExamples<CreateFxConversionDto> = {
  atQuote: { summary: 'Convert at a quote made less than 60 s ago', value: { quoteId: 'fxq_3hV8c2QmZkR1pT6wYbN0aD' } },
};

export class FxConversionDto {
  /** Conversion identifier (`fxc_`); the wallet transactions it wrote name it as `relatedId`. */
  id: string;
  quoteId: string;
  from: string;
  to: string;
  @ApiProperty(RATE)
  rate: number;
  /** Taken from the `from` wallet (a CONVERSION_OUT transaction). */
  @ApiProperty({ type: 'integer', minimum: 1 })
  fromAmountCents: number;
  /** Added to the `to` wallet (a CONVERSION_IN transaction); the wallet opens if the account had none. */
  @ApiProperty({ type: 'integer', minimum: 1 })
  toAmountCents: number;
  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: string;
}

export class FxConversionResponseDto {
  conversion: FxConversionDto;
}
