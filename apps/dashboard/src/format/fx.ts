/**
 * What a send funded from another wallet takes from it: `ceil(valueCents / rate)` in the funding
 * currency's cents, computed in integers as the service does (docs/currencies.md, Rounding), so the
 * amount shown before sending is the amount taken at that rate.
 */
export function fundedCents(valueCents: number, rate: number): number {
  const scaled = rateInHundredMillionths(rate);
  return Number((BigInt(valueCents) * 100_000_000n + scaled - 1n) / scaled);
}

/** A rate as the API gives it (a number with at most 8 decimals) as an integer of 10^-8. */
function rateInHundredMillionths(rate: number): bigint {
  if (!(rate > 0)) throw new RangeError(`not a rate: ${rate}`);
  const [whole, fraction] = rate.toFixed(8).split('.');
  return BigInt(whole) * 100_000_000n + BigInt(fraction);
}
