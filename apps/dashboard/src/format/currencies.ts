import type { FxRate } from '../api/fx';
import type { Wallet } from '../api/wallet';

/**
 * The currencies the account may hold, as the API tells them: the rates cover every pair of the
 * supported currencies (those the catalog offers and the primary one), and the wallets held are
 * added in case the rates are not there yet. The primary currency (the first wallet) comes first,
 * the others by code.
 */
export function supportedCurrencies(wallets: readonly Wallet[], rates: readonly FxRate[]): string[] {
  const [primary, ...held] = wallets.map((w) => w.currency);
  const others = new Set([...held, ...rates.flatMap((r) => [r.from, r.to])]);
  if (primary) others.delete(primary);
  return [...(primary ? [primary] : []), ...[...others].sort()];
}
