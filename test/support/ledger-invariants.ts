import type { DataSource } from 'typeorm';

export interface WalletFigures {
  currency: string;
  primary: boolean;
  available: number;
  reserved: number;
  availableSum: number;
  reservedSum: number;
}

/** Each wallet (of the account, or of every account) with the sums of its own ledger rows, primary first. */
async function walletFigures(dataSource: DataSource, accountId: string | null): Promise<(WalletFigures & { accountId: string })[]> {
  const rows: Record<string, string | boolean>[] = await dataSource.query(
    `SELECT w.account_id, w.currency, w.is_primary, w.available_cents::bigint AS available, w.reserved_cents::bigint AS reserved,
            COALESCE(SUM(t.available_delta_cents), 0)::bigint AS available_sum,
            COALESCE(SUM(t.reserved_delta_cents), 0)::bigint AS reserved_sum
       FROM wallets w LEFT JOIN wallet_transactions t ON t.account_id = w.account_id AND t.currency = w.currency
      WHERE $1::text IS NULL OR w.account_id = $1
      GROUP BY w.account_id, w.currency
      ORDER BY w.account_id, w.is_primary DESC, w.currency`,
    [accountId],
  );
  return rows.map((row) => ({
    accountId: String(row.account_id),
    currency: String(row.currency),
    primary: row.is_primary === true,
    available: Number(row.available),
    reserved: Number(row.reserved),
    availableSum: Number(row.available_sum),
    reservedSum: Number(row.reserved_sum),
  }));
}

/** Ledger rows that name no wallet of their account (the foreign key forbids them; checked all the same). */
async function orphanRows(dataSource: DataSource, accountId: string | null): Promise<number> {
  const [{ n }] = await dataSource.query(
    `SELECT count(*)::int AS n FROM wallet_transactions t
      WHERE ($1::text IS NULL OR t.account_id = $1)
        AND NOT EXISTS (SELECT 1 FROM wallets w WHERE w.account_id = t.account_id AND w.currency = t.currency)`,
    [accountId],
  );
  return n;
}

function expectWallet(wallet: WalletFigures & { accountId: string }): void {
  const where = `${wallet.accountId} ${wallet.currency}`;
  expect({ where, available: wallet.available >= 0, reserved: wallet.reserved >= 0 }).toEqual({ where, available: true, reserved: true });
  expect({ where, available: wallet.availableSum, reserved: wallet.reservedSum }).toEqual({ where, available: wallet.available, reserved: wallet.reserved });
}

/**
 * The ledger invariants (docs/wallet-ledger.md), checked from the tables for every wallet of the
 * account, whatever its currency: balances never negative, each balance equal to the sum of its own
 * ledger rows' deltas, exactly one primary wallet, and no row outside a wallet. Returns the primary
 * wallet's figures (as before wallets per currency) with `wallets`, every wallet by currency.
 */
export async function expectLedgerInvariants(dataSource: DataSource, accountId: string) {
  const wallets = await walletFigures(dataSource, accountId);
  wallets.forEach(expectWallet);
  expect(wallets.filter((w) => w.primary)).toHaveLength(1);
  expect(await orphanRows(dataSource, accountId)).toBe(0);
  const primary = wallets.find((w) => w.primary)!;
  return {
    available: primary.available,
    reserved: primary.reserved,
    availableSum: primary.availableSum,
    reservedSum: primary.reservedSum,
    wallets: Object.fromEntries(wallets.map((w) => [w.currency, { available: w.available, reserved: w.reserved }])) as Record<
      string,
      { available: number; reserved: number }
    >,
  };
}

/** The same for every wallet of every account in the database (a suite's last check). Returns how many wallets it checked. */
export async function expectLedgerInvariantsEverywhere(dataSource: DataSource): Promise<number> {
  const wallets = await walletFigures(dataSource, null);
  wallets.forEach(expectWallet);
  const [{ accounts, primaries }] = await dataSource.query(
    `SELECT (SELECT count(*)::int FROM accounts) AS accounts, (SELECT count(*)::int FROM wallets WHERE is_primary) AS primaries`,
  );
  expect(primaries).toBe(accounts);
  expect(await orphanRows(dataSource, null)).toBe(0);
  return wallets.length;
}
