import { Logger } from '@nestjs/common';
import type { Clock, TangoConfig } from '@app/core';
import { FxRatesSource, FxRatesSourceError, SourceRate } from './rates-source.port';
import { parseRate } from './rate-math';
import type { TangoExchangeRate } from './tango-rates-wire';

/**
 * A rate Tango last changed this long ago is no longer believed. Tango updates its rates once a
 * day (between 12:00 and 13:00 UTC), so a day-old rate is normal; one two days old means its
 * updates have stopped, and refreshing would only renew our copy's date.
 */
export const TANGO_RATE_MAX_AGE_MS = 48 * 60 * 60 * 1000;

const CURRENCY = /^[A-Z]{3}$/;

/**
 * `FX_RATES=tango`: Tango Card's RaaS v2 exchange rates (docs/currencies.md, Rate sources), with
 * the Basic authentication of orders and SUPPLIER_TIMEOUT_MS per call. An answer that is not a
 * list of exchange rates, or has no usable one, is refused as a whole; single entries that are
 * malformed, or older than TANGO_RATE_MAX_AGE_MS, are left out (and logged).
 */
export class TangoRatesSource implements FxRatesSource {
  readonly name = 'tango' as const;
  private readonly logger = new Logger(TangoRatesSource.name);
  private readonly authorization: string;
  private readonly url: string;

  constructor(
    private readonly options: TangoConfig & { timeoutMs: number },
    private readonly clock: Clock,
  ) {
    this.authorization = `Basic ${Buffer.from(`${options.platformName}:${options.platformKey}`, 'utf8').toString('base64')}`;
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/raas/v2/exchangerates`;
  }

  async fetch(): Promise<SourceRate[]> {
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.url, {
        headers: { authorization: this.authorization, accept: 'application/json' },
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      const name = (error as { name?: string } | null)?.name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw new FxRatesSourceError(`Tango did not answer the exchange rates within ${this.options.timeoutMs} ms.`);
      }
      const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
      throw new FxRatesSourceError(`Tango could not be reached for exchange rates: ${cause?.code ?? cause?.message ?? String(error)}.`);
    }
    if (!response.ok) throw new FxRatesSourceError(`Tango answered the exchange rates with HTTP ${response.status}.`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new FxRatesSourceError('Tango answered the exchange rates with something that is not JSON.');
    }
    const entries = (body as { exchangeRates?: unknown } | null)?.exchangeRates;
    if (!Array.isArray(entries)) throw new FxRatesSourceError('Tango answered the exchange rates without an exchangeRates list.');

    const now = this.clock.now().getTime();
    const rates = new Map<string, SourceRate>();
    let skipped = 0;
    for (const entry of entries as Partial<TangoExchangeRate>[]) {
      const rate = this.rateOf(entry, now);
      if (rate) rates.set(`${rate.from}:${rate.to}`, rate);
      else skipped += 1;
    }
    if (skipped > 0) this.logger.warn({ skipped, kept: rates.size }, 'Tango exchange rates: entries left out (malformed, or not updated for 48 h)');
    if (rates.size === 0) throw new FxRatesSourceError('Tango answered no usable exchange rate.');
    return [...rates.values()];
  }

  /** One entry as a rate from its base currency to its reward currency; null when it cannot be believed. */
  private rateOf(entry: Partial<TangoExchangeRate> | null, now: number): SourceRate | null {
    if (!entry || typeof entry !== 'object') return null;
    const { baseCurrency: from, rewardCurrency: to, lastModifiedDate } = entry;
    if (typeof from !== 'string' || typeof to !== 'string' || !CURRENCY.test(from) || !CURRENCY.test(to) || from === to) return null;
    const modified = typeof lastModifiedDate === 'string' ? Date.parse(lastModifiedDate) : NaN;
    if (!Number.isFinite(modified) || now - modified > TANGO_RATE_MAX_AGE_MS) return null;
    const midRate = parseRate(entry.baseFx);
    return midRate === null ? null : { from, to, midRate };
  }
}
