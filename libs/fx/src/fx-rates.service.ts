import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig, Clock, FxRatesSourceName, UnavailableError } from '@app/core';
import { divideRates, formatRate, parseRate, RATE_SCALE, withMarkup } from './rates/rate-math';
import { FX_RATES_SOURCE, FxRatesSource, SourceRate } from './rates/rates-source.port';

/** Rates older than this are not used: conversions answer 503 (docs/currencies.md, Rate sources). */
export const FX_RATES_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** How often the worker side asks the source again. */
export const FX_RATES_REFRESH_MS = 10 * 60 * 1000;
/**
 * How long `current` reuses the stored rates it read (wall-clock time, an in-process cache): a busy
 * process reads them about once a second instead of once per quote or funded send, and sees another
 * process's refresh at most this late. Its own refresh is seen at once.
 */
export const FX_STORED_RATES_REUSE_MS = 1_000;
/** What a 503 for stale or missing rates tells a client to wait: the rates are asked again this often at most. */
const RETRY_AFTER_SECONDS = 60;
/** Cross rates go through this currency first when a source publishes no direct or inverse rate. */
const PREFERRED_BASE = 'USD';

/** A rate as a merchant gets it: `rate` units of `to` per one unit of `from` (markup included), `midRate` without. */
export interface FxRate {
  from: string;
  to: string;
  rate: bigint;
  midRate: bigint;
  /** When the source last gave the rates it comes from (the older one, for a derived rate). */
  asOf: Date;
}

export interface FxRatesHealth {
  source: FxRatesSourceName;
  /**
   * `fresh`: usable; `stale`: the newest rates are older than 24 h; `missing`: none were ever stored;
   * `unknown`: the database did not answer.
   */
  status: 'fresh' | 'stale' | 'missing' | 'unknown';
  asOf: string | null;
}

interface StoredRate {
  from: string;
  to: string;
  midRate: bigint;
  asOf: Date;
}

/** 503: no usable rate for a pair right now; nothing was converted. */
export class FxRatesUnavailableError extends UnavailableError {
  constructor(message: string) {
    super(message, RETRY_AFTER_SECONDS);
  }
}

/**
 * The exchange rates: the source's latest rates are stored in fx_rates by a refresh (at start in
 * every process, and every 10 minutes on the worker side), and read from there, so a request never
 * waits on the source. A pair the source does not publish is derived: the inverse of the opposite
 * pair, or the cross through a currency both are quoted from. Rates older than 24 h are not used.
 */
@Injectable()
export class FxRates implements OnApplicationBootstrap {
  private readonly logger = new Logger(FxRates.name);
  private recent: { readAt: number; rates: Promise<StoredRate[]> } | null = null;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(FX_RATES_SOURCE) private readonly source: FxRatesSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // A source that is down must not keep the process from starting: the stored rates stay.
    await this.refreshLogged('start-up');
  }

  /**
   * Asks the source and stores what it gave, dated now. A source that is down or answers garbage
   * throws (FxRatesSourceError) and leaves the stored rates as they were, to age. Returns the
   * number of rates stored.
   */
  async refresh(): Promise<number> {
    const rates: SourceRate[] = await this.source.fetch();
    const asOf = this.clock.now();
    // A refresh that started earlier never overwrites a later one's rates.
    await this.dataSource.query(
      `INSERT INTO fx_rates AS r (source, from_currency, to_currency, mid_rate, as_of)
       SELECT $1, f, t, m::numeric, $5 FROM unnest($2::text[], $3::text[], $4::text[]) AS x (f, t, m)
       ON CONFLICT (source, from_currency, to_currency) DO UPDATE SET mid_rate = EXCLUDED.mid_rate, as_of = EXCLUDED.as_of
        WHERE r.as_of <= EXCLUDED.as_of`,
      [this.source.name, rates.map((r) => r.from), rates.map((r) => r.to), rates.map((r) => formatRate(r.midRate)), asOf],
    );
    this.recent = null;
    return rates.length;
  }

  async refreshLogged(reason: string): Promise<void> {
    try {
      const stored = await this.refresh();
      this.logger.log({ reason, source: this.source.name, stored }, 'exchange rates refreshed');
    } catch (error) {
      this.logger.error({ err: error, reason, source: this.source.name }, 'exchange rates refresh failed; the stored rates stay');
    }
  }

  /**
   * The rate to use now from `from` to `to`. 503 (FxRatesUnavailableError) when the source gives
   * none, or only one older than 24 h. Without a `manager`, from the stored rates read at most
   * FX_STORED_RATES_REUSE_MS ago; with one, read in that transaction. Whether a rate is stale is
   * judged on every call, by the clock.
   */
  async current(from: string, to: string, manager?: EntityManager): Promise<FxRate> {
    const stored = manager ? await this.stored(manager, [from, to]) : await this.storedRecently();
    const rate = derive(stored, from, to);
    if (!rate) throw new FxRatesUnavailableError(`No exchange rate from ${from} to ${to} is available from the rate source (${this.source.name}); nothing was converted.`);
    if (this.isStale(rate.asOf)) {
      throw new FxRatesUnavailableError(
        `The exchange rates from ${this.source.name} are older than 24 hours (last updated ${rate.asOf.toISOString()}); ` +
          'nothing was converted. Conversions resume once the rate source answers again.',
      );
    }
    return this.priced(rate);
  }

  /** Every pair of `currencies` with a rate (from `from` only, when given), stale ones included with their `asOf`. */
  async list(currencies: string[], from?: string): Promise<FxRate[]> {
    const stored = await this.stored(this.dataSource.manager, null);
    const rates: FxRate[] = [];
    for (const source of from === undefined ? currencies : [from]) {
      for (const target of currencies) {
        if (source === target) continue;
        const rate = derive(stored, source, target);
        if (rate) rates.push(this.priced(rate));
      }
    }
    return rates;
  }

  /** For /health/ready: how old the newest stored rates of the source are. */
  async health(): Promise<FxRatesHealth> {
    const [row]: { as_of: Date | null }[] = await this.dataSource.query(`SELECT max(as_of) AS as_of FROM fx_rates WHERE source = $1`, [
      this.source.name,
    ]);
    const asOf = row?.as_of ? new Date(row.as_of) : null;
    return { source: this.source.name, status: asOf === null ? 'missing' : this.isStale(asOf) ? 'stale' : 'fresh', asOf: asOf?.toISOString() ?? null };
  }

  /** What /health/ready says when the database does not answer in time. */
  unknownHealth(): FxRatesHealth {
    return { source: this.source.name, status: 'unknown', asOf: null };
  }

  private isStale(asOf: Date): boolean {
    return this.clock.now().getTime() - asOf.getTime() > FX_RATES_MAX_AGE_MS;
  }

  private priced(rate: StoredRate): FxRate {
    return { ...rate, rate: withMarkup(rate.midRate, this.config.fxMarkupBps) };
  }

  /** Every stored rate of the source, as read at most FX_STORED_RATES_REUSE_MS ago (a failed read is not kept). */
  private storedRecently(): Promise<StoredRate[]> {
    const now = Date.now();
    if (this.recent === null || now - this.recent.readAt > FX_STORED_RATES_REUSE_MS) {
      const rates = this.stored(this.dataSource.manager, null);
      const recent = { readAt: now, rates };
      this.recent = recent;
      rates.catch(() => {
        if (this.recent === recent) this.recent = null;
      });
    }
    return this.recent.rates;
  }

  /** The source's stored rates: those that touch `currencies` (all that can derive their pairs), or all. */
  private async stored(manager: EntityManager, currencies: string[] | null): Promise<StoredRate[]> {
    const rows: { from_currency: string; to_currency: string; mid_rate: string; as_of: Date }[] = await manager.query(
      `SELECT from_currency, to_currency, mid_rate::text AS mid_rate, as_of FROM fx_rates
        WHERE source = $1 AND ($2::text[] IS NULL OR from_currency = ANY($2) OR to_currency = ANY($2))`,
      [this.source.name, currencies],
    );
    return rows.map((row) => ({ from: row.from_currency, to: row.to_currency, midRate: parseRate(row.mid_rate)!, asOf: new Date(row.as_of) }));
  }
}

/**
 * The mid rate from `from` to `to` out of a source's rates: published, else the inverse of the
 * opposite pair, else the cross through a currency both are quoted from (USD first, then by code).
 */
export function derive(rates: StoredRate[], from: string, to: string): StoredRate | null {
  const find = (a: string, b: string) => rates.find((r) => r.from === a && r.to === b);
  const direct = find(from, to);
  if (direct) return direct;
  const opposite = find(to, from);
  if (opposite) return { from, to, midRate: divideRates(RATE_SCALE, opposite.midRate), asOf: opposite.asOf };
  const bases = [...new Set(rates.map((r) => r.from))].sort((a, b) => (a === PREFERRED_BASE ? -1 : b === PREFERRED_BASE ? 1 : a < b ? -1 : 1));
  for (const base of bases) {
    const toFrom = find(base, from);
    const toTo = find(base, to);
    if (toFrom && toTo) {
      return { from, to, midRate: divideRates(toTo.midRate, toFrom.midRate), asOf: toFrom.asOf < toTo.asOf ? toFrom.asOf : toTo.asOf };
    }
  }
  return null;
}
