import { DataSource } from 'typeorm';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { CatalogPicks, catalogPicks, choiceReward, countRows, fixedReward, fund } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

describe('POST /v1/rewards/bulk', () => {
  let t: TestApp;
  let dataSource: DataSource;
  let picks: CatalogPicks;
  const merchants: SeededMerchant[] = [];
  const newMerchant = async (fundsCents: number) => {
    const m = await seedMerchant(t);
    merchants.push(m);
    await fund(t, m, fundsCents);
    return m;
  };
  const wallet = async (m: SeededMerchant) => (await t.api.as(m.key).get('/v1/wallet')).body.wallet;

  beforeAll(async () => {
    t = await startTestApp();
    dataSource = t.app.get(DataSource);
    picks = await catalogPicks(t, (await newMerchant(100)).key);
  });
  afterAll(async () => {
    for (const m of merchants) await expectLedgerInvariants(dataSource, m.accountId);
    await t.close();
  });

  it('sends 500 CHOICE rewards in one request: 207, all sent, in order, each held', async () => {
    const m = await newMerchant(500 * 1_000);
    const items = Array.from({ length: 500 }, (_, i) => choiceReward(1_000, { externalId: `bulk-${i}` }));
    const res = await t.api.as(m.key).post('/v1/rewards/bulk', { rewards: items });
    expect(res.status).toBe(207);
    expect(res.body).toMatchObject({ dryRun: false, sent: 500, failed: 0 });
    expect(res.body.results.map((r: any) => r.index)).toEqual(items.map((_, i) => i));
    expect(res.body.results.every((r: any) => r.ok && /^rw_/.test(r.rewardId) && r.error === null)).toBe(true);
    expect(await wallet(m)).toMatchObject({ availableCents: 0, reservedCents: 500_000 });
    const [first] = (await t.api.as(m.key).get(`/v1/rewards?external_id=bulk-0`)).body.rewards;
    expect(first).toMatchObject({ id: res.body.results[0].rewardId, source: 'bulk', status: 'SENT' });
    expect(await countRows(dataSource, `SELECT 1 FROM events WHERE account_id = $1 AND type = 'reward.created'`, [m.accountId])).toBe(500);
    expect(await countRows(dataSource, `SELECT 1 FROM mail_jobs j JOIN rewards r ON r.id = j.reward_id WHERE r.account_id = $1`, [m.accountId])).toBe(500);
  });

  it('an invalid item fails alone; the first unaffordable item skips itself and everything after', async () => {
    const m = await newMerchant(3_500);
    const res = await t.api.as(m.key).post('/v1/rewards/bulk', {
      rewards: [
        choiceReward(1_000),
        { type: 'CHOICE', valueCents: 1_000 }, // no recipient: 400 for this item only
        fixedReward(picks.fixedEur, { currency: 'USD' }), // a EUR item said to be in USD: 422 for this item only
        choiceReward(2_000),
        choiceReward(1_000), // 500 left: the wallet runs out here
        choiceReward(100), // affordable, but after the stop: skipped
        { nonsense: true }, // invalid, but after the stop: skipped
      ],
    });
    expect(res.status).toBe(207);
    expect(res.body.sent + res.body.failed).toBe(7);
    expect(res.body).toMatchObject({ sent: 2, failed: 5 });
    const results = res.body.results;
    expect(results.map((r: any) => r.ok)).toEqual([true, false, false, true, false, false, false]);
    expect(results[1].error).toMatch(/^bad_request: .*recipient/);
    expect(results[2].error).toMatch(/^validation: .*EUR/);
    expect(results.slice(4).map((r: any) => r.error)).toEqual(Array(3).fill('skipped: insufficient_funds'));
    expect(results.filter((r: any) => !r.ok).every((r: any) => r.rewardId === null)).toBe(true);
    expect(await wallet(m)).toMatchObject({ availableCents: 500, reservedCents: 3_000 });
  });

  it('refuses more than 500 items, an empty list and a body that is not a list', async () => {
    const m = await newMerchant(1_000);
    for (const body of [{ rewards: Array.from({ length: 501 }, () => choiceReward(1)) }, { rewards: [] }, { rewards: 'many' }, {}]) {
      const res = await t.api.as(m.key).post('/v1/rewards/bulk', body);
      expect(res.status).toBe(400);
      expect(res.body.issues[0].path).toBe('rewards');
    }
  });

  it('replays with its 207 and Idempotent-Replayed under the same key; charges once', async () => {
    const m = await newMerchant(10_000);
    const body = { rewards: [choiceReward(1_000), choiceReward(2_000)] };
    const first = await t.api.as(m.key).post('/v1/rewards/bulk', body, { headers: { 'idempotency-key': 'campaign-7' } });
    const again = await t.api.as(m.key).post('/v1/rewards/bulk', body, { headers: { 'idempotency-key': 'campaign-7' } });
    expect([first.status, again.status]).toEqual([207, 207]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await wallet(m)).toMatchObject({ availableCents: 7_000 });
    const other = await t.api.as(m.key).post('/v1/rewards/bulk', { rewards: [choiceReward(1)] }, { headers: { 'idempotency-key': 'campaign-7' } });
    expect(other.status).toBe(422);
  });

  it('a bulk that created nothing stores nothing against its key: after a top-up the same key sends', async () => {
    const m = await newMerchant(100);
    const body = { rewards: [choiceReward(1_000), choiceReward(1_000)] };
    const empty = await t.api.as(m.key).post('/v1/rewards/bulk', body, { headers: { 'idempotency-key': 'payday' } });
    expect(empty.body).toMatchObject({ sent: 0, failed: 2 });
    await fund(t, m, 2_000);
    const retried = await t.api.as(m.key).post('/v1/rewards/bulk', body, { headers: { 'idempotency-key': 'payday' } });
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.body).toMatchObject({ sent: 2, failed: 0 });
  });

  it('a dry run answers per item and charges, stores and sends nothing', async () => {
    const m = await newMerchant(2_500);
    const res = await t.api.as(m.key).post('/v1/rewards/bulk?dry_run=true', {
      rewards: [choiceReward(1_000), fixedReward(picks.fixedEur, { currency: 'USD' }), choiceReward(1_000), choiceReward(1_000)],
    });
    expect(res.status).toBe(207);
    expect(res.body).toMatchObject({ dryRun: true, sent: 2, failed: 2 });
    expect(res.body.results.map((r: any) => [r.ok, r.rewardId, r.error?.split(':')[0] ?? null])).toEqual([
      [true, null, null],
      [false, null, 'validation'],
      [true, null, null],
      [false, null, 'skipped'],
    ]);
    expect(await wallet(m)).toMatchObject({ availableCents: 2_500, reservedCents: 0 });
    expect(await countRows(dataSource, 'SELECT 1 FROM rewards WHERE account_id = $1', [m.accountId])).toBe(0);
  });
});
