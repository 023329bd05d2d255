import Papa from 'papaparse';
import { csvText, guardFormula } from './report-csv';

describe('report CSV', () => {
  it('writes a header row, quotes as RFC 4180 says and prefixes formula-like text with a quote', () => {
    const text = csvText(
      [
        ['rw_1', 'a, "quoted"\nline', -500, null, '=HYPERLINK("x")'],
        ['rw_2', '+1', 0, 'Zoë Łukasz 山田', '@SUM(A1)'],
      ],
      ['id', 'text', 'cents', 'name', 'note'],
    );
    expect(text.startsWith('id,text,cents,name,note\r\n')).toBe(true);
    const parsed = Papa.parse<string[]>(text.trimEnd(), { header: false });
    expect(parsed.errors).toEqual([]);
    expect(parsed.data).toEqual([
      ['id', 'text', 'cents', 'name', 'note'],
      ['rw_1', 'a, "quoted"\nline', '-500', '', `'=HYPERLINK("x")`],
      ['rw_2', `'+1`, '0', 'Zoë Łukasz 山田', `'@SUM(A1)`],
    ]);
  });

  it('leaves a text that starts otherwise as it is', () => {
    expect(guardFormula('Ada')).toBe('Ada');
    expect(guardFormula('-x')).toBe("'-x");
    expect(guardFormula('')).toBe('');
  });
});
