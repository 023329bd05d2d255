import type { DataSource } from 'typeorm';

/**
 * The ledger invariants (docs/wallet-ledger.md), checked from the tables: balances never negative, and each balance equal
 * to the sum of its ledger's deltas. Returns the wallet for further assertions.
 */
export async function expectLedgerInvariants(dataSource: DataSource, accountId: string) {
  const [row] = await dataSource.query(
    `SELECT w.available_cents::bigint AS available, w.reserved_cents::bigint AS reserved,
            COALESCE(SUM(t.available_delta_cents), 0)::bigint AS available_sum,
            COALESCE(SUM(t.reserved_delta_cents), 0)::bigint AS reserved_sum
       FROM wallets w LEFT JOIN wallet_transactions t ON t.account_id = w.account_id
      WHERE w.account_id = $1
      GROUP BY w.account_id`,
    [accountId],
  );
  const wallet = {
    available: Number(row.available),
    reserved: Number(row.reserved),
    availableSum: Number(row.available_sum),
    reservedSum: Number(row.reserved_sum),
  };
  expect(wallet.available).toBeGreaterThanOrEqual(0);
  expect(wallet.reserved).toBeGreaterThanOrEqual(0);
  expect(wallet.availableSum).toBe(wallet.available);
  expect(wallet.reservedSum).toBe(wallet.reserved);
  return wallet;
}
