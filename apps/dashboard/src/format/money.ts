/**
 * Integer cents as their own currency prints them, e.g. 2500 USD → "$25.00", 2500 EUR → "€25.00"
 * (in the browser's locale). Every amount is formatted in the currency it is in: a wallet's, a
 * transaction's, a reward's, never the account's by default.
 */
export function formatCents(cents: number, currency: string, locale?: string): string {
  return new Intl.NumberFormat(locale, { style: 'currency', currency }).format(cents / 100);
}

/** A rate as the API gives it (units of `to` per one `from`, up to 8 places): "1 USD = 0.79 GBP". */
export function formatRate(rate: number, from: string, to: string, locale?: string): string {
  return `1 ${from} = ${new Intl.NumberFormat(locale, { maximumFractionDigits: 8 }).format(rate)} ${to}`;
}

/**
 * A timestamp in the viewer's zone, short, with the zone named ("Dec 3, 2026, 2:00 PM EST"), so a
 * time read by people in different places is never taken for another; the exact ISO value belongs
 * in the element's `dateTime` and a title for hover. `timeZone` is for tests (the browser's otherwise).
 */
export function formatTime(iso: string, locale?: string, timeZone?: string): string {
  return new Intl.DateTimeFormat(locale, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'short',
    ...(timeZone ? { timeZone } : {}),
  }).format(new Date(iso));
}
