import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { AuditLog, AuditOrigin } from '@app/audit';
import { BadRequestError, Clock, fingerprint, IdempotencyStore, newId, NotFoundError, ValidationError } from '@app/core';
import { Currencies, WalletLedger } from '@app/wallet';
import { CreateFxQuoteDto, FxConversionDto, FxConversionResponseDto, FxQuoteDto, FxRateDto } from './dto/fx.dto';
import { FxRate, FxRates } from './fx-rates.service';
import { formatRate, fromAmountFor, parseRate } from './rates/rate-math';

/** A quote binds for this long (docs/currencies.md, Quotes). */
export const QUOTE_TTL_MS = 60_000;

export interface ConversionOutcome {
  status: 200 | 201;
  body: FxConversionResponseDto;
  replayed: boolean;
}

interface QuoteRow {
  id: string;
  from_currency: string;
  to_currency: string;
  rate: string;
  mid_rate: string;
  from_amount_cents: string;
  to_amount_cents: string;
  expires_at: Date;
}

/**
 * Rates, binding quotes and conversions between an account's wallets (docs/currencies.md). A
 * conversion writes its row, both ledger rows and its audit entry in one transaction, at the quote's
 * rate and amounts, once per quote.
 */
@Injectable()
export class FxService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly rates: FxRates,
    private readonly currencies: Currencies,
    private readonly ledger: WalletLedger,
    private readonly idempotencyKeys: IdempotencyStore,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  /** The rates between the currencies the account may hold (from `from` only, when given). */
  async listRates(accountId: string, from?: string): Promise<FxRateDto[]> {
    if (from !== undefined) await this.currencies.check(accountId, from, 'from');
    const rates = await this.rates.list(await this.currencies.supported(accountId), from);
    return rates.map(toRateDto);
  }

  /** A quote binding for 60 s: the rate now, and what `toAmountCents` costs at it. */
  async createQuote(accountId: string, dto: CreateFxQuoteDto): Promise<FxQuoteDto> {
    await this.checkPair(accountId, dto.from, dto.to);
    const rate = await this.rates.current(dto.from, dto.to);
    const fromAmountCents = fromAmountFor(dto.toAmountCents, rate.rate);
    const id = newId('fxq');
    const expiresAt = new Date(this.clock.now().getTime() + QUOTE_TTL_MS);
    await this.dataSource.query(
      `INSERT INTO fx_quotes (id, account_id, from_currency, to_currency, rate, mid_rate, from_amount_cents, to_amount_cents, expires_at)
       VALUES ($1, $2, $3, $4, $5::numeric, $6::numeric, $7, $8, $9)`,
      [id, accountId, dto.from, dto.to, formatRate(rate.rate), formatRate(rate.midRate), fromAmountCents, dto.toAmountCents, expiresAt],
    );
    return {
      id,
      from: dto.from,
      to: dto.to,
      rate: Number(formatRate(rate.rate)),
      midRate: Number(formatRate(rate.midRate)),
      fromAmountCents,
      toAmountCents: dto.toAmountCents,
      expiresAt: expiresAt.toISOString(),
    };
  }

  /**
   * Converts at a quote of this account: 404 for an unknown quote or another account's, 422 for one
   * expired or used, 503 while the rates are stale, 402 when the source wallet cannot cover it. With
   * an Idempotency-Key, a retry replays the first answer (docs/idempotency.md); a failure stores nothing.
   */
  async convert(accountId: string, quoteId: string, idempotencyKey: string | null, origin: AuditOrigin): Promise<ConversionOutcome> {
    return this.dataSource.transaction(async (manager) => {
      const claim = idempotencyKey
        ? await this.idempotencyKeys.claim(manager, {
            scope: accountId,
            key: idempotencyKey,
            operation: 'fx.conversions.create',
            requestHash: fingerprint({ quoteId }),
          })
        : null;
      if (claim?.kind === 'replay') return { status: 200, body: claim.response.body as FxConversionResponseDto, replayed: true };

      const quote = await this.quoteOf(manager, accountId, quoteId);
      const [used]: { id: string }[] = await manager.query(`SELECT id FROM fx_conversions WHERE quote_id = $1`, [quote.id]);
      if (used) throw usedQuote(quote.id);
      if (this.clock.now().getTime() >= quote.expires_at.getTime()) {
        throw new ValidationError(`Quote ${quote.id} expired at ${quote.expires_at.toISOString()}; ask for a new quote.`);
      }
      // The quote fixed the rate, but stale rates stop every conversion (docs/currencies.md).
      await this.rates.current(quote.from_currency, quote.to_currency, manager);

      const conversion: FxConversionDto = {
        id: newId('fxc'),
        quoteId: quote.id,
        from: quote.from_currency,
        to: quote.to_currency,
        rate: Number(formatRate(parseRate(quote.rate)!)),
        fromAmountCents: Number(quote.from_amount_cents),
        toAmountCents: Number(quote.to_amount_cents),
        createdAt: '',
      };
      // The quote's one conversion: a second request with it waits here on the first's row, then finds it taken.
      const [row]: { created_at: Date }[] = await manager
        .query(
          `INSERT INTO fx_conversions (id, account_id, quote_id, from_currency, to_currency, rate, from_amount_cents, to_amount_cents)
           VALUES ($1, $2, $3, $4, $5, $6::numeric, $7, $8) RETURNING created_at`,
          [conversion.id, accountId, quote.id, conversion.from, conversion.to, quote.rate, conversion.fromAmountCents, conversion.toAmountCents],
        )
        .catch((error: unknown) => {
          throw isQuoteTaken(error) ? usedQuote(quote.id) : error;
        });
      conversion.createdAt = new Date(row.created_at).toISOString();
      await this.ledger.convert(manager, {
        accountId,
        fromCurrency: conversion.from,
        toCurrency: conversion.to,
        fromAmountCents: conversion.fromAmountCents,
        toAmountCents: conversion.toAmountCents,
        relatedType: 'conversion',
        relatedId: conversion.id,
        description: `Conversion ${conversion.id}: ${conversion.from} to ${conversion.to} at ${formatRate(parseRate(quote.rate)!)}`,
      });
      await this.audit.record(manager, {
        accountId,
        origin,
        action: 'fx_conversion.created',
        targetType: 'fx_conversion',
        targetId: conversion.id,
        metadata: {
          quoteId: quote.id,
          from: conversion.from,
          to: conversion.to,
          rate: formatRate(parseRate(quote.rate)!),
          fromAmountCents: conversion.fromAmountCents,
          toAmountCents: conversion.toAmountCents,
        },
      });
      const body: FxConversionResponseDto = { conversion };
      if (claim?.kind === 'owner') await claim.complete(201, body);
      return { status: 201, body, replayed: false };
    });
  }

  private async checkPair(accountId: string, from: string, to: string): Promise<void> {
    if (from === to) throw new BadRequestError([{ path: 'to', message: 'must be another currency than from' }]);
    await this.currencies.check(accountId, from, 'from');
    await this.currencies.check(accountId, to, 'to');
  }

  /** The account's quote; another account's is as unknown as one that never existed. */
  private async quoteOf(manager: EntityManager, accountId: string, quoteId: string): Promise<QuoteRow> {
    const [quote]: QuoteRow[] = await manager.query(
      `SELECT id, from_currency, to_currency, rate::text AS rate, mid_rate::text AS mid_rate, from_amount_cents, to_amount_cents, expires_at
         FROM fx_quotes WHERE id = $1 AND account_id = $2`,
      [quoteId, accountId],
    );
    if (!quote) throw new NotFoundError('Quote');
    return { ...quote, expires_at: new Date(quote.expires_at) };
  }
}

function usedQuote(quoteId: string): ValidationError {
  return new ValidationError(`Quote ${quoteId} was already used for a conversion; ask for a new quote.`);
}

function isQuoteTaken(error: unknown): boolean {
  return error instanceof QueryFailedError && (error.driverError as { constraint?: string }).constraint === 'fx_conversions_quote_key';
}

function toRateDto(rate: FxRate): FxRateDto {
  return {
    from: rate.from,
    to: rate.to,
    rate: Number(formatRate(rate.rate)),
    midRate: Number(formatRate(rate.midRate)),
    asOf: rate.asOf.toISOString(),
  };
}
