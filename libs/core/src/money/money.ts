/** An amount of cents as people read it in `currency` (`$12.50`). */
export function formatMoney(cents: number, currency: string): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(cents / 100);
}

/**
 * Cents of an amount in major units, as the catalog states values (25.00); none counts as zero.
 * Rounded, so a binary fraction (19.99 * 100 = 1998.9999...) lands on the cent it means.
 */
export function centsOf(major: number | null | undefined): number {
  return Math.round((major ?? 0) * 100);
}
