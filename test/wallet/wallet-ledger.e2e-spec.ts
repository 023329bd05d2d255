import { DataSource } from 'typeorm';
import { InsufficientFundsError, newId, Statement } from '@app/core';
import { WalletLedger } from '@app/wallet';
import { adminDataSource } from '../support/database-admin';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { seedMerchant, startTestApp, TestApp } from '../support/test-app';

/**
 * The app's pool runs 20 transactions at once (libs/core/src/database/data-source-options.ts) and makes the rest wait
 * for a connection, giving up after 5 s. All of this test's transactions take the same wallet row one after another,
 * so on a loaded machine the last ones queued waited over 5 s and failed on the pool, not on the ledger (a clean-clone
 * CI run lost all 60 credits that way). Running them 20 at a time keeps the same contention on the row, with no wait
 * for a connection.
 */
const POOL_SIZE = 20;
async function settleAtMost<T>(limit: number, operations: (() => Promise<T>)[]): Promise<PromiseSettledResult<T>[]> {
  const results: PromiseSettledResult<T>[] = [];
  let next = 0;
  const lane = async () => {
    while (next < operations.length) {
      const i = next++;
      results[i] = await operations[i]().then(
        (value): PromiseSettledResult<T> => ({ status: 'fulfilled', value }),
        (reason: unknown): PromiseSettledResult<T> => ({ status: 'rejected', reason }),
      );
    }
  };
  await Promise.all(Array.from({ length: limit }, lane));
  return results;
}

describe('wallet ledger (real Postgres, concurrent transactions)', () => {
  let t: TestApp;
  let ledger: WalletLedger;
  let dataSource: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    ledger = t.app.get(WalletLedger);
    dataSource = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  const credit = (accountId: string, amountCents: number) =>
    dataSource.transaction((m) => ledger.credit(m, { accountId, amountCents, relatedType: 'topup', relatedId: newId('tu') }));
  const hold = (accountId: string, amountCents: number, rewardId = newId('rw')) =>
    dataSource.transaction((m) => ledger.hold(m, { accountId, amountCents, relatedType: 'reward', relatedId: rewardId }));

  it('opens one wallet per account, in its currency, at zero', async () => {
    const merchant = await seedMerchant(t, { currency: 'CAD' });
    const wallet = await ledger.getWallet(merchant.accountId);
    expect(wallet).toMatchObject({ currency: 'CAD', availableCents: 0, reservedCents: 0 });
  });

  it('50 parallel holds against funds for 20: exactly 20 succeed, the rest are insufficient_funds', async () => {
    const { accountId } = await seedMerchant(t);
    await credit(accountId, 20 * 100);
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => hold(accountId, 100)));
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(ok).toHaveLength(20);
    expect(refused).toHaveLength(30);
    for (const r of refused) expect(r.reason).toBeInstanceOf(InsufficientFundsError);
    const wallet = await expectLedgerInvariants(dataSource, accountId);
    expect(wallet).toMatchObject({ available: 0, reserved: 2000 });
    const [{ holds }] = await dataSource.query(`SELECT count(*)::int AS holds FROM wallet_transactions WHERE account_id = $1 AND kind = 'HOLD'`, [accountId]);
    expect(holds).toBe(20);
  });

  it('hundreds of concurrent credits, holds, captures and releases keep every invariant', async () => {
    const { accountId } = await seedMerchant(t);
    await credit(accountId, 10_000);
    // 100 rewards of 150 each: some held, then captured (per card), released or left reserved.
    const rewards = Array.from({ length: 100 }, () => newId('rw'));
    const held = await settleAtMost<unknown>(POOL_SIZE, [
      ...rewards.map((id) => () => hold(accountId, 150, id)),
      ...Array.from({ length: 60 }, () => () => credit(accountId, 25)),
    ]);
    const heldIds = rewards.filter((_, i) => held[i].status === 'fulfilled');
    const credits = held.slice(rewards.length).filter((r) => r.status === 'fulfilled').length;
    // A failed credit says why in the failure message.
    const creditFailures = held.slice(rewards.length).flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
    expect({ credits, creditFailures: creditFailures.slice(0, 3) }).toEqual({ credits: 60, creditFailures: [] });
    expect(heldIds.length).toBeGreaterThanOrEqual(66); // at least the initial 10,000 covers 66 holds

    const ops = heldIds.flatMap((rewardId, i) =>
      i % 3 === 0
        ? [() => dataSource.transaction((m) => ledger.capture(m, { accountId, amountCents: 150, relatedType: 'card', relatedId: `card_${rewardId}` }))]
        : i % 3 === 1
          ? [() => dataSource.transaction((m) => ledger.release(m, { accountId, amountCents: 150, relatedType: 'reward', relatedId: rewardId }))]
          : [],
    );
    for (const op of await settleAtMost(POOL_SIZE, ops)) if (op.status === 'rejected') throw op.reason;

    const captured = heldIds.filter((_, i) => i % 3 === 0).length;
    const released = heldIds.filter((_, i) => i % 3 === 1).length;
    const stillHeld = heldIds.length - captured - released;
    const wallet = await expectLedgerInvariants(dataSource, accountId);
    expect(wallet.reserved).toBe(stillHeld * 150);
    expect(wallet.available).toBe(10_000 + 60 * 25 - heldIds.length * 150 + released * 150);
  });

  it('captures a card, releases a reward and credits a top-up at most once, even concurrently', async () => {
    const { accountId } = await seedMerchant(t);
    const topupId = newId('tu');
    const credits = await Promise.all(
      Array.from({ length: 5 }, () =>
        dataSource.transaction((m) => ledger.credit(m, { accountId, amountCents: 1000, relatedType: 'topup', relatedId: topupId })),
      ),
    );
    expect(credits.filter(Boolean)).toHaveLength(1);
    await hold(accountId, 600, 'rw_once');
    const captures = await Promise.all(
      Array.from({ length: 5 }, () =>
        dataSource.transaction((m) => ledger.capture(m, { accountId, amountCents: 600, relatedType: 'card', relatedId: 'card_once' })),
      ),
    );
    expect(captures.filter(Boolean)).toHaveLength(1);
    expect(await expectLedgerInvariants(dataSource, accountId)).toMatchObject({ available: 400, reserved: 0 });
  });

  it('a refused hold leaves the wallet and the caller transaction untouched', async () => {
    const { accountId } = await seedMerchant(t);
    await credit(accountId, 500);
    await expect(hold(accountId, 501)).rejects.toBeInstanceOf(InsufficientFundsError);
    expect(await expectLedgerInvariants(dataSource, accountId)).toMatchObject({ available: 500, reserved: 0 });
  });

  describe('the database itself refuses what must never happen', () => {
    it('a balance written directly, not through the ledger: the service may not, and the owner role meets the guard', async () => {
      const { accountId } = await seedMerchant(t);
      const write = `UPDATE wallets SET available_cents = 1000000 WHERE account_id = $1`;
      await expect(dataSource.query(write, [accountId])).rejects.toThrow(/permission denied for table wallets/);
      const owner = await adminDataSource(t.config.databaseUrl);
      try {
        await expect(owner.query(write, [accountId])).rejects.toThrow(/only through wallet_transactions/);
      } finally {
        await owner.destroy();
      }
    });

    it('editing or deleting a ledger row: the service may not, and the owner role meets the append-only trigger', async () => {
      const { accountId } = await seedMerchant(t);
      await credit(accountId, 100);
      const edit = `UPDATE wallet_transactions SET available_delta_cents = 999 WHERE account_id = $1`;
      const remove = `DELETE FROM wallet_transactions WHERE account_id = $1`;
      await expect(dataSource.query(edit, [accountId])).rejects.toThrow(/permission denied for table wallet_transactions/);
      await expect(dataSource.query(remove, [accountId])).rejects.toThrow(/permission denied for table wallet_transactions/);
      const owner = await adminDataSource(t.config.databaseUrl);
      try {
        await expect(owner.query(edit, [accountId])).rejects.toThrow(/append-only/);
        await expect(owner.query(remove, [accountId])).rejects.toThrow(/append-only/);
      } finally {
        await owner.destroy();
      }
    });

    it('a ledger row whose deltas do not fit its kind, or that would overdraw', async () => {
      const { accountId } = await seedMerchant(t);
      const insert = (kind: string, available: number, reserved: number) =>
        dataSource.query(
          `INSERT INTO wallet_transactions (id, account_id, currency, kind, available_delta_cents, reserved_delta_cents, related_type, related_id)
           VALUES ($1, $2, 'USD', $3, $4, $5, 'reward', $1)`,
          [newId('wtx'), accountId, kind, available, reserved],
        );
      await expect(insert('TOPUP', -5, 0)).rejects.toThrow(/wallet_transactions_kind_check/);
      await expect(insert('HOLD', -5, 4)).rejects.toThrow(/wallet_transactions_kind_check/);
      await expect(insert('CONVERSION_OUT', 5, 0)).rejects.toThrow(/wallet_transactions_kind_check/);
      await expect(insert('CONVERSION_IN', 5, 5)).rejects.toThrow(/wallet_transactions_kind_check/);
      await expect(insert('CONVERSION_OUT', -5, 0)).rejects.toThrow(/wallets_available_check/);
      await expect(insert('HOLD', -5, 5)).rejects.toThrow(/wallets_available_check/);
      await expect(insert('CAPTURE', 0, -5)).rejects.toThrow(/wallets_reserved_check/);
      expect(await expectLedgerInvariants(dataSource, accountId)).toMatchObject({ available: 0, reserved: 0 });
    });
  });
  describe('one wallet per currency', () => {
    const creditIn = (accountId: string, currency: string, amountCents: number) =>
      dataSource.transaction((m) => ledger.credit(m, { accountId, currency, amountCents, relatedType: 'topup', relatedId: newId('tu') }));
    const wallets = async (accountId: string) =>
      (await ledger.listWallets(accountId)).map((w) => ({ currency: w.currency, available: w.availableCents, reserved: w.reservedCents }));

    it('a credit in another currency opens its wallet; the primary wallet and the old calls stay as they were', async () => {
      const { accountId } = await seedMerchant(t);
      await creditIn(accountId, 'EUR', 700);
      await credit(accountId, 300);
      await hold(accountId, 100);
      expect(await wallets(accountId)).toEqual([
        { currency: 'USD', available: 200, reserved: 100 },
        { currency: 'EUR', available: 700, reserved: 0 },
      ]);
      expect(await ledger.getWallet(accountId)).toMatchObject({ currency: 'USD', availableCents: 200 });
      expect(await ledger.getWallet(accountId, 'GBP')).toMatchObject({ currency: 'GBP', availableCents: 0, reservedCents: 0 });
      const [{ n }] = await dataSource.query(`SELECT count(*)::int AS n FROM wallets WHERE account_id = $1`, [accountId]);
      expect(n).toBe(2);
      expect((await expectLedgerInvariants(dataSource, accountId)).wallets).toEqual({ USD: { available: 200, reserved: 100 }, EUR: { available: 700, reserved: 0 } });
    });

    it('holds, captures and releases in a currency move only that wallet, each against its own balance', async () => {
      const { accountId } = await seedMerchant(t);
      await credit(accountId, 1_000);
      await creditIn(accountId, 'GBP', 500);
      const gbp = (amountCents: number, relatedId: string) => ({ accountId, currency: 'GBP', amountCents, relatedType: 'reward' as const, relatedId });
      await dataSource.transaction((m) => ledger.hold(m, gbp(400, 'rw_gbp_1')));
      // USD has 1,000, but a GBP hold only sees the GBP wallet.
      await expect(dataSource.transaction((m) => ledger.hold(m, gbp(101, 'rw_gbp_2')))).rejects.toThrow(/The GBP wallet balance is too low/);
      await dataSource.transaction((m) => ledger.capture(m, { ...gbp(150, 'card_gbp_1'), relatedType: 'card' }));
      await dataSource.transaction((m) => ledger.release(m, gbp(250, 'rw_gbp_1')));
      expect(await wallets(accountId)).toEqual([
        { currency: 'USD', available: 1_000, reserved: 0 },
        { currency: 'GBP', available: 350, reserved: 0 },
      ]);
      await expectLedgerInvariants(dataSource, accountId);
    });

    it('a hold from a currency the account holds no wallet in is insufficient_funds naming it, and opens nothing', async () => {
      const { accountId } = await seedMerchant(t);
      await credit(accountId, 1_000);
      const refused = dataSource.transaction((m) => ledger.hold(m, { accountId, currency: 'CAD', amountCents: 1, relatedType: 'reward', relatedId: newId('rw') }));
      await expect(refused).rejects.toBeInstanceOf(InsufficientFundsError);
      await expect(refused).rejects.toThrow('The CAD wallet balance is too low for this request.');
      expect(await wallets(accountId)).toEqual([{ currency: 'USD', available: 1_000, reserved: 0 }]);
    });

    it('an expiry batch releases to each entry’s own wallet, across accounts and currencies', async () => {
      const a = await seedMerchant(t);
      const b = await seedMerchant(t, { currency: 'CAD' });
      await credit(a.accountId, 500);
      await creditIn(a.accountId, 'EUR', 500);
      await credit(b.accountId, 500);
      const holds = [
        { accountId: a.accountId, amountCents: 100, relatedType: 'reward' as const, relatedId: newId('rw') },
        { accountId: a.accountId, currency: 'EUR', amountCents: 200, relatedType: 'reward' as const, relatedId: newId('rw') },
        { accountId: b.accountId, amountCents: 300, relatedType: 'reward' as const, relatedId: newId('rw') },
      ];
      for (const entry of holds) await dataSource.transaction((m) => ledger.hold(m, entry));
      const statement = new Statement();
      const released = ledger.releaseEachIn(statement, holds);
      const [{ n }] = await dataSource.query(statement.text(`SELECT count(*)::int AS n FROM ${released}`), statement.params);
      expect(n).toBe(3);
      expect(await wallets(a.accountId)).toEqual([
        { currency: 'USD', available: 500, reserved: 0 },
        { currency: 'EUR', available: 500, reserved: 0 },
      ]);
      expect(await wallets(b.accountId)).toEqual([{ currency: 'CAD', available: 500, reserved: 0 }]);
    });

    it('a conversion moves both wallets in one transaction, opening the target; too little moves neither and opens nothing', async () => {
      const { accountId } = await seedMerchant(t);
      await credit(accountId, 1_000);
      const convert = (fromAmountCents: number, toAmountCents: number) =>
        dataSource.transaction((m) =>
          ledger.convert(m, { accountId, fromCurrency: 'USD', toCurrency: 'GBP', fromAmountCents, toAmountCents, relatedType: 'conversion', relatedId: newId('fxc') }),
        );
      await expect(convert(1_001, 790)).rejects.toThrow('The USD wallet balance is too low for this request.');
      expect(await wallets(accountId)).toEqual([{ currency: 'USD', available: 1_000, reserved: 0 }]);
      await convert(633, 500);
      await convert(367, 290);
      expect(await wallets(accountId)).toEqual([
        { currency: 'USD', available: 0, reserved: 0 },
        { currency: 'GBP', available: 790, reserved: 0 },
      ]);
      const rows = await dataSource.query(
        `SELECT currency, kind, available_delta_cents::int AS available, related_type FROM wallet_transactions WHERE account_id = $1 AND related_type = 'conversion' ORDER BY seq`,
        [accountId],
      );
      expect(rows).toEqual([
        { currency: 'USD', kind: 'CONVERSION_OUT', available: -633, related_type: 'conversion' },
        { currency: 'GBP', kind: 'CONVERSION_IN', available: 500, related_type: 'conversion' },
        { currency: 'USD', kind: 'CONVERSION_OUT', available: -367, related_type: 'conversion' },
        { currency: 'GBP', kind: 'CONVERSION_IN', available: 290, related_type: 'conversion' },
      ]);
      await expectLedgerInvariants(dataSource, accountId);
    });

    it('a send funded from another wallet: conversion and hold in one statement, into a wallet opened by it (the fundingCurrency shape)', async () => {
      const { accountId } = await seedMerchant(t);
      await credit(accountId, 2_000);
      const fundedSend = (rewardId: string, fromAmountCents: number) => {
        const statement = new Statement();
        ledger.convertIn(statement, { accountId, fromCurrency: 'USD', toCurrency: 'EUR', fromAmountCents, toAmountCents: 920, relatedType: 'reward', relatedId: rewardId });
        ledger.holdIn(statement, { accountId, currency: 'EUR', amountCents: 920, relatedType: 'reward', relatedId: rewardId });
        return dataSource.query(statement.text('SELECT 1'), statement.params).catch((error: unknown) => {
          throw ledger.insufficientFundsOr(error, 'USD');
        });
      };
      await expect(fundedSend(newId('rw'), 2_001)).rejects.toThrow('The USD wallet balance is too low');
      expect(await wallets(accountId)).toEqual([{ currency: 'USD', available: 2_000, reserved: 0 }]);
      await fundedSend(newId('rw'), 1_000);
      // The converted value is held at once: none of it is ever available in EUR.
      expect(await wallets(accountId)).toEqual([
        { currency: 'USD', available: 1_000, reserved: 0 },
        { currency: 'EUR', available: 0, reserved: 920 },
      ]);
      await expectLedgerInvariants(dataSource, accountId);
    });

    it('50 parallel conversions from one wallet against funds for 12: exactly 12 succeed', async () => {
      const { accountId } = await seedMerchant(t);
      await credit(accountId, 12 * 109);
      const results = await Promise.allSettled(
        Array.from({ length: 50 }, (_, i) =>
          dataSource.transaction((m) =>
            ledger.convert(m, {
              accountId,
              fromCurrency: 'USD',
              toCurrency: i % 2 ? 'EUR' : 'CAD',
              fromAmountCents: 109,
              toAmountCents: 100,
              relatedType: 'conversion',
              relatedId: newId('fxc'),
            }),
          ),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(12);
      for (const r of results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[]) expect(r.reason).toBeInstanceOf(InsufficientFundsError);
      const figures = await expectLedgerInvariants(dataSource, accountId);
      expect(figures.available).toBe(0);
      expect((figures.wallets.EUR?.available ?? 0) + (figures.wallets.CAD?.available ?? 0)).toBe(1_200);
    });

    it('deleting an account removes every wallet with its ledger, the one deletion the append-only ledger allows', async () => {
      const { accountId } = await seedMerchant(t);
      await credit(accountId, 500);
      await creditIn(accountId, 'EUR', 500);
      await creditIn(accountId, 'GBP', 500);
      const owner = await adminDataSource(t.config.databaseUrl);
      try {
        await expect(owner.query(`DELETE FROM wallet_transactions WHERE account_id = $1 AND currency = 'EUR'`, [accountId])).rejects.toThrow(/append-only/);
        await owner.query(`DELETE FROM accounts WHERE id = $1`, [accountId]);
      } finally {
        await owner.destroy();
      }
      const [{ wallets: left, rows }] = await dataSource.query(
        `SELECT (SELECT count(*)::int FROM wallets WHERE account_id = $1) AS wallets, (SELECT count(*)::int FROM wallet_transactions WHERE account_id = $1) AS rows`,
        [accountId],
      );
      expect({ left, rows }).toEqual({ left: 0, rows: 0 });
    });

    it('the database refuses a wallet opened with money, a second primary wallet, a row of a wallet that does not exist, and a primary flag changed', async () => {
      const { accountId } = await seedMerchant(t);
      const open = (currency: string, extra: string, values: string) =>
        dataSource.query(`INSERT INTO wallets (account_id, currency${extra}) VALUES ($1, $2${values})`, [accountId, currency]);
      await expect(open('GBP', ', available_cents', ', 100')).rejects.toThrow(/opens with zero balances/);
      await expect(open('GBP', ', reserved_cents', ', 100')).rejects.toThrow(/opens with zero balances/);
      await expect(open('GBP', ', is_primary', ', true')).rejects.toThrow(/wallets_one_primary/);
      await expect(open('gbp', '', '')).rejects.toThrow(/wallets_currency_check/);
      await expect(
        dataSource.query(
          `INSERT INTO wallet_transactions (id, account_id, currency, kind, available_delta_cents, reserved_delta_cents, related_type, related_id)
           VALUES ($1, $2, 'EUR', 'TOPUP', 5, 0, 'topup', $1)`,
          [newId('wtx'), accountId],
        ),
      ).rejects.toThrow(/wallet_transactions_wallet_fkey/);
      const owner = await adminDataSource(t.config.databaseUrl);
      try {
        await expect(owner.query(`UPDATE wallets SET is_primary = false WHERE account_id = $1`, [accountId])).rejects.toThrow(/primary flag cannot change/);
      } finally {
        await owner.destroy();
      }
      expect(await wallets(accountId)).toEqual([{ currency: 'USD', available: 0, reserved: 0 }]);
    });
  });
});
