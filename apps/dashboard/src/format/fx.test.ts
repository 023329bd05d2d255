import { describe, expect, it } from 'vitest';
import { fundedCents } from './fx';

describe('fundedCents: what a funded send takes from the funding wallet', () => {
  it('rounds up, in integers, as the service does (docs/currencies.md, Rounding)', () => {
    // The examples of docs/currencies.md: 50.00 EUR from USD at 0.92, 100.00 GBP from USD at 0.79 and at 0.77815.
    expect(fundedCents(5_000, 0.92)).toBe(5_435);
    expect(fundedCents(10_000, 0.79)).toBe(12_659);
    expect(fundedCents(10_000, 0.77815)).toBe(12_851);
  });

  it('is exact where a floating-point division is not, and never a cent short', () => {
    // 0.57 has no exact binary form: 57 / 0.57 is 100.00000000000001 in floating point, whose ceiling is 101.
    expect(fundedCents(57, 0.57)).toBe(100);
    for (const [value, rate] of [
      [1, 1.087],
      [9_999, 0.8587],
      [100_000_000, 1.4783],
      [12_345, 0.00000001],
    ] as const) {
      const cents = fundedCents(value, rate);
      const scaled = BigInt(Math.round(rate * 1e8));
      expect(BigInt(cents) * scaled).toBeGreaterThanOrEqual(BigInt(value) * 100_000_000n);
      expect(BigInt(cents - 1) * scaled).toBeLessThan(BigInt(value) * 100_000_000n);
    }
  });
});
