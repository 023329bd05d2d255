import { code128Svg, code128Symbols } from './code128';

describe('Code 128 (set B) barcode', () => {
  it('frames the data with Start B, a mod-103 check symbol and Stop', () => {
    // "AB": values 33 and 34; check = (104 + 33*1 + 34*2) mod 103 = 102.
    expect(code128Symbols('AB')).toEqual([104, 33, 34, 102, 106]);
    expect(code128Symbols('')).toBeNull();
    expect(code128Symbols('café')).toBeNull();
  });

  it('draws 11 modules per symbol and 13 for Stop, inside 10-module quiet zones', () => {
    const value = '6412-3456 7890';
    const svg = String(code128Svg(value, 'Barcode of <x>'));
    const width = Number(/viewBox="0 0 (\d+) 60"/.exec(svg)![1]);
    expect(width).toBe(10 + 11 * (value.length + 2) + 13 + 10);
    expect(svg).toContain('aria-label="Barcode of &lt;x&gt;"');
  });
});
