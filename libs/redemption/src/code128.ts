import { html, type SafeHtml } from '@app/core';

/**
 * Code 128 (code set B) as inline SVG, drawn on the server from a credential's value so the page
 * needs no barcode library and no network. Each pattern is six bar/space widths in modules,
 * bar first (ISO/IEC 15417); 103–105 start codes, 106 the stop (seven elements).
 */
// prettier-ignore
const PATTERNS = [
  '212222', '222122', '222221', '121223', '121322', '131222', '122213', '122312', '132212', '221213',
  '221312', '231212', '112232', '122132', '122231', '113222', '123122', '123221', '223211', '221132',
  '221231', '213212', '223112', '312131', '311222', '321122', '321221', '312212', '322112', '322211',
  '212123', '212321', '232121', '111323', '131123', '131321', '112313', '132113', '132311', '211313',
  '231113', '231311', '112133', '112331', '132131', '113123', '113321', '133121', '313121', '211331',
  '231131', '213113', '213311', '213131', '311123', '311321', '331121', '312113', '312311', '332111',
  '314111', '221411', '431111', '111224', '111422', '121124', '121421', '141122', '141221', '112214',
  '112412', '122114', '122411', '142112', '142211', '241211', '221114', '413111', '241112', '134111',
  '111242', '121142', '121241', '114212', '124112', '124211', '411212', '421112', '421211', '212141',
  '214121', '412121', '111143', '111341', '131141', '114113', '114311', '411113', '411311', '113141',
  '114131', '311141', '411131', '211412', '211214', '211232', '2331112',
];
const START_B = 104;
const STOP = 106;
const QUIET_MODULES = 10;

/** The symbol values of `text` in code set B with its check symbol, or null if a character is not printable ASCII. */
export function code128Symbols(text: string): number[] | null {
  if (text.length === 0 || !/^[\x20-\x7e]+$/.test(text)) return null;
  const data = [...text].map((char) => char.charCodeAt(0) - 32);
  const check = data.reduce((sum, value, i) => sum + value * (i + 1), START_B) % 103;
  return [START_B, ...data, check, STOP];
}

/** An SVG of the barcode, scaled to its container; null when the value cannot be encoded. */
export function code128Svg(text: string, label: string): SafeHtml | null {
  const symbols = code128Symbols(text);
  if (!symbols) return null;
  const bars: string[] = [];
  let x = QUIET_MODULES;
  for (const symbol of symbols) {
    [...PATTERNS[symbol]].forEach((width, i) => {
      const w = Number(width);
      if (i % 2 === 0) bars.push(`M${x} 0h${w}v60h-${w}z`);
      x += w;
    });
  }
  const total = x + QUIET_MODULES;
  return html`<svg class="barcode" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${total} 60" preserveAspectRatio="none" role="img" aria-label="${label}"><rect width="${total}" height="60" fill="#fff"/><path fill="#000" d="${bars.join('')}"/></svg>`;
}
