import { describe, expect, it } from 'vitest';
import type { FxRate } from '../api/fx';
import type { Wallet } from '../api/wallet';
import { supportedCurrencies } from './currencies';

describe('the currencies a top-up or conversion may use', () => {
  const wallet = (currency: string): Wallet => ({ currency, availableCents: 0, reservedCents: 0 });
  const rate = (from: string, to: string): FxRate => ({ from, to, rate: 1, midRate: 1, asOf: '2026-11-28T10:00:00.000Z' });

  it('the primary currency (the first wallet) first, then every other from the rates and the wallets, by code', () => {
    const rates = [rate('EUR', 'USD'), rate('USD', 'GBP'), rate('CAD', 'EUR'), rate('GBP', 'EUR')];
    expect(supportedCurrencies([wallet('GBP'), wallet('EUR')], rates)).toEqual(['GBP', 'CAD', 'EUR', 'USD']);
  });

  it('before the rates answer (or with none), the wallets held', () => {
    expect(supportedCurrencies([wallet('USD'), wallet('EUR')], [])).toEqual(['USD', 'EUR']);
    expect(supportedCurrencies([wallet('USD')], [])).toEqual(['USD']);
  });
});
