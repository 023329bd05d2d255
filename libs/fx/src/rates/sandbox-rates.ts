import { FxRatesSource, SourceRate } from './rates-source.port';
import { parseRate } from './rate-math';

/**
 * `FX_RATES=sandbox`: a fixed table, published in docs/currencies.md (Sandbox rates) so amounts
 * can be predicted. Units of the column currency per one unit of the row currency (mid rates).
 */
export const SANDBOX_RATES: Record<string, Record<string, string>> = {
  USD: { EUR: '0.92', GBP: '0.79', CAD: '1.36' },
  EUR: { USD: '1.087', GBP: '0.8587', CAD: '1.4783' },
  GBP: { USD: '1.2658', EUR: '1.1646', CAD: '1.7215' },
  CAD: { USD: '0.7353', EUR: '0.6765', GBP: '0.5809' },
};

export class SandboxRatesSource implements FxRatesSource {
  readonly name = 'sandbox' as const;

  async fetch(): Promise<SourceRate[]> {
    return Object.entries(SANDBOX_RATES).flatMap(([from, row]) =>
      Object.entries(row).map(([to, rate]) => ({ from, to, midRate: parseRate(rate)! })),
    );
  }
}
