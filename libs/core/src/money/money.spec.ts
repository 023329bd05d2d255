import { formatMoney } from './money';

describe('formatMoney', () => {
  it('formats cents in the currency, the same on every call (one formatter per currency)', () => {
    expect(formatMoney(1250, 'USD')).toBe('$12.50');
    expect(formatMoney(1250, 'USD')).toBe('$12.50');
    expect(formatMoney(99, 'EUR')).toBe('€0.99');
    expect(formatMoney(100000, 'GBP')).toBe('£1,000.00');
    expect(formatMoney(5, 'USD')).toBe('$0.05');
  });

  it('still refuses a currency code Intl does not take, every time', () => {
    expect(() => formatMoney(100, 'not a currency')).toThrow(RangeError);
    expect(() => formatMoney(100, 'not a currency')).toThrow(RangeError);
  });
});
