import { BadRequestError } from '@app/core';
import { formatAmount, parseStatementMonth } from './wallet-statements.service';

describe('statement months (docs/statements.md)', () => {
  it('are UTC months: from the first instant to the first instant of the next, December into January', () => {
    expect(parseStatementMonth('2026-11')).toEqual({ month: '2026-11', start: new Date('2026-11-01T00:00:00Z'), end: new Date('2026-12-01T00:00:00Z') });
    expect(parseStatementMonth('2026-12').end).toEqual(new Date('2027-01-01T00:00:00Z'));
    expect(parseStatementMonth('2028-02').end).toEqual(new Date('2028-03-01T00:00:00Z'));
  });

  it.each(['2026-13', '2026-00', '2026-1', '202611', '2026-11-01', ' 2026-11', '1969-12', '２０２６-11'])('refuses %p with 400 naming month', (month) => {
    let error: unknown;
    try {
      parseStatementMonth(month);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).issues?.map((i) => i.path)).toEqual(['month']);
  });
});

describe('amounts on statements and receipts', () => {
  it('print the code after the figure, so currencies that share a symbol stay apart', () => {
    expect(formatAmount(123_456_789, 'USD')).toBe('1,234,567.89 USD');
    expect(formatAmount(5, 'CAD')).toBe('0.05 CAD');
    expect(formatAmount(0, 'EUR')).toBe('0.00 EUR');
  });
});
