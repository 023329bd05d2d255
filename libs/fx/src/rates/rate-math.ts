/**
 * Exchange rates as exact decimals with 8 places, held as integers of 10^-8 (bigint), so every
 * amount is computed exactly, never in floating point (docs/currencies.md, Rounding).
 */
export const RATE_SCALE = 100_000_000n;
const PLACES = 8;

/**
 * A positive rate given as a number or a decimal string, rounded half up to 8 places; null for
 * anything else (negative, zero after rounding, not finite, not a number, exponents in a string).
 */
export function parseRate(value: unknown): bigint | null {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value <= 0) return null;
    // Up to 12 places is far more than any rate source gives, and never in exponent form.
    text = value.toFixed(12);
  } else if (typeof value === 'string') text = value.trim();
  else return null;
  const match = /^(\d{1,12})(?:\.(\d{1,20}))?$/.exec(text);
  if (!match) return null;
  const fraction = (match[2] ?? '').padEnd(PLACES + 1, '0');
  const scaled = BigInt(match[1]) * RATE_SCALE + BigInt(fraction.slice(0, PLACES));
  const rounded = scaled + (Number(fraction[PLACES]) >= 5 ? 1n : 0n);
  return rounded > 0n ? rounded : null;
}

/** The decimal text of a rate, without trailing zeros ("0.92", "1.3599"). */
export function formatRate(rate: bigint): string {
  const whole = rate / RATE_SCALE;
  const fraction = (rate % RATE_SCALE).toString().padStart(PLACES, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}

/** `a / b`, both rates, rounded half up to 8 places (cross and inverse rates). */
export function divideRates(a: bigint, b: bigint): bigint {
  return (2n * a * RATE_SCALE + b) / (2n * b);
}

/**
 * The rate a merchant gets: the mid rate less the markup (basis points), rounded down, so the
 * merchant never gets more of the target currency than the markup allows.
 */
export function withMarkup(midRate: bigint, markupBps: number): bigint {
  return (midRate * BigInt(10_000 - markupBps)) / 10_000n;
}

/**
 * What `toAmountCents` of the target currency costs in the source currency at `rate`: rounded up,
 * so rounding never favours the merchant by a cent (`ceil(toAmountCents / rate)`).
 */
export function fromAmountFor(toAmountCents: number, rate: bigint): number {
  const to = BigInt(toAmountCents);
  return Number((to * RATE_SCALE + rate - 1n) / rate);
}
