import type { FxRatesSourceName } from '@app/core';

/**
 * One rate a source publishes: `midRate` units of `to` per one unit of `from`, before any markup,
 * as an exact decimal with 8 places (rate-math.ts). Sources publish some pairs; the others are
 * derived from them (inverse, or across a common currency) when read (docs/currencies.md).
 */
export interface SourceRate {
  from: string;
  to: string;
  midRate: bigint;
}

/** The port: where rates come from (FX_RATES). Adapters: `sandbox` (a fixed table) and `tango`. */
export interface FxRatesSource {
  readonly name: FxRatesSourceName;
  /** The source's current rates. Throws FxRatesSourceError when it cannot be reached or answers garbage. */
  fetch(): Promise<SourceRate[]>;
}

export const FX_RATES_SOURCE = Symbol('FX_RATES_SOURCE');

/** The source could not give usable rates: the rates already stored stay as they were. */
export class FxRatesSourceError extends Error {}
