import type { components } from '@client/schema';
import type { Wallet } from '../api/wallet';
import { formatCents } from '../format/money';

type CurrencyStats = components['schemas']['CurrencyStatsDto'];

/**
 * One card per wallet, in the API's order (the primary currency first, then by code), each amount
 * in the wallet's own currency. With `stats` (the Overview), each card adds what the currency's
 * rewards have issued and still hold.
 */
export function Balances({ wallets, stats }: { wallets: readonly Wallet[]; stats?: readonly CurrencyStats[] }) {
  return (
    <ul className="balances">
      {wallets.map((wallet, index) => {
        const figures = stats?.find((s) => s.currency === wallet.currency);
        const money = (cents: number) => formatCents(cents, wallet.currency);
        return (
          <li key={wallet.currency} aria-labelledby={`balance-${wallet.currency}`}>
            <h3 id={`balance-${wallet.currency}`}>
              {wallet.currency}
              {index === 0 && (
                <>
                  {' '}
                  <span className="tag">primary</span>
                </>
              )}
            </h3>
            <dl className="facts">
              <dt>Available</dt>
              <dd>{money(wallet.availableCents)}</dd>
              <dt>Reserved</dt>
              <dd>{money(wallet.reservedCents)}</dd>
              {figures && (
                <>
                  <dt>Issued in cards</dt>
                  <dd>{money(figures.totalIssuedCents)}</dd>
                  <dt>In active rewards</dt>
                  <dd>{money(figures.activeValueCents)}</dd>
                </>
              )}
            </dl>
          </li>
        );
      })}
    </ul>
  );
}
