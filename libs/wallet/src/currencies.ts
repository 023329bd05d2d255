import { applyDecorators, Injectable } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { CatalogService } from '@app/catalog';
import { BadRequestError } from '@app/core';
import { WalletLedger } from './wallet-ledger.service';

/** An upper-case ISO 4217 code; lower case is refused like any other unknown code (docs/currencies.md). */
export const CURRENCY_CODE = /^[A-Z]{3}$/;

/**
 * A currency field or query parameter: shape checked here (`400` naming it), whether the account
 * may hold it checked by `Currencies.check` (it depends on the catalog).
 */
export function CurrencyCode(options: { required: boolean; description: string; example?: string }): PropertyDecorator {
  const documented = { type: String, pattern: '^[A-Z]{3}$', minLength: 3, maxLength: 3, example: options.example ?? 'EUR', description: options.description };
  return applyDecorators(
    options.required ? ApiProperty(documented) : ApiPropertyOptional(documented),
    ...(options.required ? [] : [IsOptional()]),
    IsString(),
    Matches(CURRENCY_CODE, { message: '$property must be an upper-case ISO 4217 currency code, such as USD' }),
  );
}

/**
 * Which currencies an account may hold wallets in (docs/currencies.md, Wallets): those the catalog
 * offers (the sandbox: USD, EUR, GBP, CAD), and always its own primary currency.
 */
@Injectable()
export class Currencies {
  constructor(
    private readonly catalog: CatalogService,
    private readonly ledger: WalletLedger,
  ) {}

  /** Sorted by code. */
  async supported(accountId: string): Promise<string[]> {
    const [offered, primary] = await Promise.all([this.catalog.currencies(), this.ledger.currencyOf(accountId)]);
    return [...new Set([primary, ...offered])].sort();
  }

  /** `currency` when the account may hold it; otherwise `400` with an issue on `path`. */
  async check(accountId: string, currency: string, path: string): Promise<string> {
    const supported = await this.supported(accountId);
    if (!supported.includes(currency)) {
      throw new BadRequestError([{ path, message: `${currency} is not a supported currency; supported: ${supported.join(', ')}` }]);
    }
    return currency;
  }
}
