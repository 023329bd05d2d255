import { describe, expect, it } from 'vitest';
import { formatCents, formatRate, formatTime } from './money';

describe('amounts in their own currency', () => {
  it('each currency prints with its own symbol and the locale’s separators', () => {
    expect(formatCents(12_659, 'USD', 'en-US')).toBe('$126.59');
    expect(formatCents(5_000, 'EUR', 'en-US')).toBe('€50.00');
    expect(formatCents(10_000, 'GBP', 'en-US')).toBe('£100.00');
    expect(formatCents(10_000, 'CAD', 'en-US')).toBe('CA$100.00');
    expect(formatCents(10_000, 'USD', 'en-GB')).toBe('US$100.00');
    expect(formatCents(123_456, 'EUR', 'fr-FR')).toBe('1\u202f234,56\u00a0€');
  });

  it('a rate reads as one unit of the source in the target, with up to 8 places and no trailing zeros', () => {
    expect(formatRate(0.79, 'USD', 'GBP', 'en-US')).toBe('1 USD = 0.79 GBP');
    expect(formatRate(0.77815, 'USD', 'GBP', 'en-US')).toBe('1 USD = 0.77815 GBP');
    expect(formatRate(1.26582278, 'GBP', 'USD', 'de-DE')).toBe('1 GBP = 1,26582278 USD');
  });
});

describe('times in the viewer’s zone', () => {
  it('name their zone, so nobody reads a time in another zone for their own', () => {
    expect(formatTime('2026-12-03T13:00:00Z', 'en-US', 'America/New_York')).toBe('Dec 3, 2026, 8:00 AM EST');
    expect(formatTime('2026-12-03T13:00:00Z', 'en-US', 'UTC')).toBe('Dec 3, 2026, 1:00 PM UTC');
    expect(formatTime('2026-12-03T13:00:00Z', 'en-GB', 'Europe/Paris')).toBe('3 Dec 2026, 14:00 CET');
  });
});
