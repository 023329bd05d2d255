/**
 * One formatter per currency, built on first use: constructing an Intl.NumberFormat costs about a
 * hundred times what formatting with one does, and every reward e-mail formats its value.
 */
const formatters = new Map<string, Intl.NumberFormat>();

/** An amount of cents as people read it in `currency` (`$12.50`). */
export function formatMoney(cents: number, currency: string): string {
  let formatter = formatters.get(currency);
  if (!formatter) {
    // Built before it is kept: an unknown currency throws here, as it always has, and is not cached.
    formatter = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    formatters.set(currency, formatter);
  }
  return formatter.format(cents / 100);
}

/**
 * Cents of an amount in major units, as the catalog states values (25.00); none counts as zero.
 * Rounded, so a binary fraction (19.99 * 100 = 1998.9999...) lands on the cent it means.
 */
export function centsOf(major: number | null | undefined): number {
  return Math.round((major ?? 0) * 100);
}
