import { DataSource } from 'typeorm';
import { InsufficientFundsError, newId } from '@app/core';
import { WalletLedger } from '@app/wallet';
import { adminDataSource } from '../support/database-admin';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { seedMerchant, startTestApp, TestApp } from '../support/test-app';

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
    const held = await Promise.allSettled(
      [...rewards.map((id) => hold(accountId, 150, id)), ...Array.from({ length: 60 }, () => credit(accountId, 25))],
    );
    const heldIds = rewards.filter((_, i) => held[i].status === 'fulfilled');
    const credits = held.slice(rewards.length).filter((r) => r.status === 'fulfilled').length;
    expect(credits).toBe(60);
    expect(heldIds.length).toBeGreaterThanOrEqual(66); // at least the initial 10,000 covers 66 holds

    const ops = heldIds.flatMap((rewardId, i) =>
      i % 3 === 0
        ? [dataSource.transaction((m) => ledger.capture(m, { accountId, amountCents: 150, relatedType: 'card', relatedId: `card_${rewardId}` }))]
        : i % 3 === 1
          ? [dataSource.transaction((m) => ledger.release(m, { accountId, amountCents: 150, relatedType: 'reward', relatedId: rewardId }))]
          : [],
    );
    await Promise.all(ops);

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
          `INSERT INTO wallet_transactions (id, account_id, kind, available_delta_cents, reserved_delta_cents, related_type, related_id)
           VALUES ($1, $2, $3, $4, $5, 'reward', $1)`,
          [newId('wtx'), accountId, kind, available, reserved],
        );
      await expect(insert('TOPUP', -5, 0)).rejects.toThrow(/wallet_transactions_kind_check/);
      await expect(insert('HOLD', -5, 4)).rejects.toThrow(/wallet_transactions_kind_check/);
      await expect(insert('HOLD', -5, 5)).rejects.toThrow(/wallets_available_check/);
      await expect(insert('CAPTURE', 0, -5)).rejects.toThrow(/wallets_reserved_check/);
      expect(await expectLedgerInvariants(dataSource, accountId)).toMatchObject({ available: 0, reserved: 0 });
    });
  });
});
