import { DataSource } from 'typeorm';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { eventually } from '../support/processes';
import { catalogPicks, CatalogPicks, countRows, fixedReward, fund } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

/**
 * A single send checks the request against the catalog held in memory and writes only if that
 * catalog is still the current revision; a sync committed elsewhere in between is seen.
 */
describe('sending while the catalog changes under the app', () => {
  let t: TestApp;
  let dataSource: DataSource;
  let merchant: SeededMerchant;
  let picks: CatalogPicks;

  beforeAll(async () => {
    t = await startTestApp();
    dataSource = t.app.get(DataSource);
    merchant = await seedMerchant(t);
    await fund(t, merchant, 1_000_000);
    picks = await catalogPicks(t, merchant.key);
  });
  afterAll(async () => {
    await expectLedgerInvariants(dataSource, merchant.accountId);
    await t.close();
  });

  const otherSync = (sql = '', params: unknown[] = []) =>
    dataSource.transaction(async (manager) => {
      if (sql) await manager.query(sql, params);
      await manager.query('UPDATE catalog_state SET revision = revision + 1 WHERE id = 1');
    });

  it('a new revision with nothing relevant changed: the send is checked again and goes through', async () => {
    expect((await t.api.as(merchant.key).post('/v1/rewards', fixedReward(picks.fixedUsd))).status).toBe(201);
    await otherSync();
    const res = await t.api.as(merchant.key).post('/v1/rewards', fixedReward(picks.fixedUsd));
    expect(res.status).toBe(201);
    expect(res.body.reward).toMatchObject({ type: 'FIXED', status: 'SENT', utid: picks.fixedUsd.utid });
  });

  it('an item withdrawn by a sync elsewhere is refused (422) at once, with nothing written or held', async () => {
    const rewards = () => countRows(dataSource, 'SELECT 1 FROM rewards WHERE account_id = $1', [merchant.accountId]);
    const before = await rewards();
    const wallet = (await t.api.as(merchant.key).get('/v1/wallet')).body.wallet;
    await otherSync('UPDATE catalog_items SET active = false WHERE utid = $1', [picks.fixedUsd.utid]);

    const res = await t.api.as(merchant.key).post('/v1/rewards', fixedReward(picks.fixedUsd), { headers: { 'idempotency-key': 'withdrawn-1' } });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain('no longer orderable');
    expect(await rewards()).toBe(before);
    expect((await t.api.as(merchant.key).get('/v1/wallet')).body.wallet).toEqual(wallet);
    // The refused request left its key free.
    expect(await countRows(dataSource, 'SELECT 1 FROM idempotency_keys WHERE scope = $1', [merchant.accountId])).toBe(0);
  });

  it('an item offered again is accepted within moments, and a retry of a send made before a withdrawal replays it', async () => {
    await otherSync('UPDATE catalog_items SET active = true WHERE utid = $1', [picks.fixedUsd.utid]);
    const body = fixedReward(picks.fixedUsd);
    const send = () => t.api.as(merchant.key).post('/v1/rewards', body, { headers: { 'idempotency-key': 'sent-before-withdrawal' } });
    // Announced by the sync's commit: no stale refusal lingers.
    const first = await eventually(async () => {
      const res = await send();
      return res.status === 201 ? res : undefined;
    }, 3_000, 20);

    await otherSync('UPDATE catalog_items SET active = false WHERE utid = $1', [picks.fixedUsd.utid]);
    const retry = await send();
    expect({ status: retry.status, body: retry.body }).toEqual({ status: 200, body: first.body });
    expect(retry.body.reward.id).toBe(first.body.reward.id);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });
});
