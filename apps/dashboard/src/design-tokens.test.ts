import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * One look (docs/dashboard.md): every colour of the dashboard's stylesheet is a design token,
 * declared once in its first `:root` block, so a page cannot drift into a palette of its own.
 */
const css = readFileSync(join(__dirname, 'styles.css'), 'utf8');
const tokensBlock = /:root\s*{([^}]*)}/.exec(css)![1];
const rest = css.slice(css.indexOf(tokensBlock) + tokensBlock.length);
const declared = new Set([...tokensBlock.matchAll(/(--[a-z0-9-]+)\s*:/g)].map((m) => m[1]));

/** Relative luminance and contrast ratio, as WCAG 2 defines them. */
function luminance(hex: string): number {
  const full = hex.length === 4 ? `#${[...hex.slice(1)].map((c) => c + c).join('')}` : hex;
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(full.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}
const value = (token: string) => new RegExp(`${token}\\s*:\\s*(#[0-9a-fA-F]{3,6})`).exec(tokensBlock)![1];

describe('design tokens', () => {
  it('no colour outside the tokens: the stylesheet names none by value (hex or a colour function) after its :root block', () => {
    expect(rest.match(/#[0-9a-fA-F]{3,6}\b|\b(rgba?|hsla?|hwb|lab|lch|oklab|oklch|color)\(/g) ?? []).toEqual([]);
  });

  it('every token the stylesheet uses is declared', () => {
    const used = new Set([...rest.matchAll(/var\((--[a-z0-9-]+)\)/g)].map((m) => m[1]));
    expect([...used].filter((token) => !declared.has(token))).toEqual([]);
  });

  it('text colours meet WCAG AA (4.5:1) on the surface and the page background', () => {
    for (const text of ['--color-text', '--color-text-muted', '--color-accent', '--color-accent-strong', '--color-danger', '--color-success']) {
      for (const ground of ['--color-surface', '--color-bg']) {
        expect({ text, ground, ok: contrast(value(text), value(ground)) >= 4.5 }).toEqual({ text, ground, ok: true });
      }
    }
    expect(contrast(value('--color-notice-text'), value('--color-notice-bg'))).toBeGreaterThanOrEqual(4.5);
  });
});
