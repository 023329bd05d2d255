import { ApiProperty } from '@nestjs/swagger';
import { CurrencyCode } from '../currencies';

const cents = (description: string, signed = false) =>
  ApiProperty({ type: 'integer', ...(signed ? {} : { minimum: 0 }), description });

/**
 * A wallet's month (UTC), from its ledger (docs/statements.md). Movements are non-negative totals;
 * closingAvailable = openingAvailable + topup − held + released + conversionIn − conversionOut and
 * closingReserved = openingReserved + held − captured − released, to the cent.
 */
export class StatementDto {
  @ApiProperty({ pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$', example: '2026-11', description: 'The month, `YYYY-MM`, in UTC.' })
  month: string;

  /** The wallet's currency (ISO 4217). */
  @ApiProperty({ example: 'USD' })
  currency: string;

  @cents('Available at the first instant of the month.')
  openingAvailableCents: number;
  @cents('Reserved at the first instant of the month.')
  openingReservedCents: number;
  @cents('Top-ups credited during the month (TOPUP).')
  topupCents: number;
  @cents('Held for rewards sent during the month (HOLD: available to reserved).')
  heldCents: number;
  @cents('Spent on issued cards during the month (CAPTURE: out of reserved).')
  capturedCents: number;
  @cents('Returned from cancelled, expired or failed rewards and cards (RELEASE: reserved to available).')
  releasedCents: number;
  @cents('Converted into this wallet from another currency (CONVERSION_IN).')
  conversionInCents: number;
  @cents('Converted out of this wallet into another currency (CONVERSION_OUT).')
  conversionOutCents: number;
  @cents('Available at the end of the month; for the current month, now.')
  closingAvailableCents: number;
  @cents('Reserved at the end of the month; for the current month, now.')
  closingReservedCents: number;
}

export class StatementResponseDto {
  statement: StatementDto;
}

export class StatementQueryDto {
  @CurrencyCode({ required: false, description: 'The wallet’s currency (default: the primary wallet’s).', example: 'USD' })
  currency?: string;
}
