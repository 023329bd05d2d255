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

/** A timestamp in the browser's zone, short; the exact ISO value belongs in a title for hover. */
export function formatTime(iso: string, locale?: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
}
