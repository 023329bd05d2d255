/** Integer cents as the account's currency would print them, e.g. 2500 USD → "$25.00". */
export function formatCents(cents: number, currency: string, locale?: string): string {
  return new Intl.NumberFormat(locale, { style: 'currency', currency }).format(cents / 100);
}

/** A timestamp in the browser's zone, short; the exact ISO value belongs in a title for hover. */
export function formatTime(iso: string, locale?: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
}
