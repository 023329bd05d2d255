import { DataSource } from 'typeorm';
import { signedIn } from '../support/dashboard';
import { DashboardClient } from '../support/dashboard-client';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { choiceReward, fund } from '../support/rewards';
import { isolatedDatabase, SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';
import { clockOverride, TestClock } from '../support/test-clock';

/** API key spending limits (docs/controls.md, Key limits). */
describe('API key limits', () => {
  let t: TestApp;
  let db: DataSource;
  const clock = new TestClock();

  beforeAll(async () => {
    t = await startTestApp({ env: await isolatedDatabase(), overrides: [clockOverride(clock)] });
    db = t.app.get(DataSource);
  });
  afterEach(() => clock.reset());
  afterAll(() => t?.close());

  const owner = (m: SeededMerchant): Promise<DashboardClient> => signedIn(t, { email: m.email, password: m.password });
  const makeKey = async (m: SeededMerchant, limits: Record<string, unknown> | undefined) => {
    const res = await (await owner(m)).post('/dashboard/api/api-keys', { name: 'limited', scopes: ['read', 'write'], ...(limits ? { limits } : {}) });
    expect(res.status).toBe(201);
    return res.body as { apiKey: { id: string; limits: unknown }; secret: string };
  };
  const wallet = async (m: SeededMerchant) => (await t.api.as(m.key).get('/v1/wallet')).body.wallet;

  it('a key is made with its limits, lists them, and the audit log records them; out of range is 400', async () => {
    const m = await seedMerchant(t);
    const dashboard = await owner(m);
    const created = await makeKey(m, { maxRewardCents: 5_000, dailyLimitCents: 20_000 });
    expect(created.apiKey.limits).toEqual({ maxRewardCents: 5_000, dailyLimitCents: 20_000 });
    const plain = await makeKey(m, undefined);
    expect(plain.apiKey.limits).toBeNull();
    const listed = (await dashboard.get('/dashboard/api/api-keys')).body.apiKeys;
    expect(listed.find((k: { id: string }) => k.id === created.apiKey.id).limits).toEqual({ maxRewardCents: 5_000, dailyLimitCents: 20_000 });
    expect(listed.find((k: { id: string }) => k.id === plain.apiKey.id).limits).toBeNull();

    const [entry] = await db.query(`SELECT metadata FROM audit_log WHERE account_id = $1 AND action = 'api_key.created' AND target_id = $2`, [m.accountId, created.apiKey.id]);
    expect(entry.metadata.limits).toEqual({ maxRewardCents: 5_000, dailyLimitCents: 20_000 });

    for (const limits of [{ maxRewardCents: 0 }, { dailyLimitCents: 100_000_001 }, { maxRewardCents: 1.5 }, { dailyLimitCents: '100' }]) {
      const res = await dashboard.post('/dashboard/api/api-keys', { name: 'bad', scopes: ['write'], limits });
      expect(res.status).toBe(400);
      expect(res.body.issues.length).toBeGreaterThan(0);
    }
  });

  it('a send over maxRewardCents is 422 naming the limit and holds nothing; one at the limit goes', async () => {
    const m = await seedMerchant(t);
    await fund(t, m, 100_000);
    const { secret } = await makeKey(m, { maxRewardCents: 5_000 });
    const over = await t.api.as(secret).post('/v1/rewards', choiceReward(5_001));
    expect(over.status).toBe(422);
    expect(over.body).toMatchObject({ error: 'validation', message: expect.stringContaining('maxRewardCents') });
    expect((await wallet(m)).availableCents).toBe(100_000);
    expect((await t.api.as(secret).post('/v1/rewards', choiceReward(5_000))).status).toBe(201);
    // The merchant's other keys have no limit.
    expect((await t.api.as(m.key).post('/v1/rewards', choiceReward(9_000))).status).toBe(201);
    expect((await wallet(m)).availableCents).toBe(86_000);
  });

  it('a reward in another currency counts at the current mid rate', async () => {
    const m = await seedMerchant(t);
    await fund(t, m, 100_000);
    const { secret } = await makeKey(m, { maxRewardCents: 10_000 });
    const rates = (await t.api.as(m.key).get('/v1/fx/rates?from=EUR')).body.rates as { to: string; midRate: number }[];
    const mid = rates.find((r) => r.to === 'USD')!.midRate;
    // The largest EUR value worth at most $100.00 at the mid rate, and one cent more.
    let eur = Math.floor(10_000 / mid);
    while (Math.round((eur + 1) * mid) <= 10_000) eur += 1;
    while (Math.round(eur * mid) > 10_000) eur -= 1;
    const over = await t.api.as(secret).post('/v1/rewards', choiceReward(eur + 1, { currency: 'EUR', fundingCurrency: 'USD' }));
    expect(over.status).toBe(422);
    expect(over.body.message).toContain('maxRewardCents');
    const within = await t.api.as(secret).post('/v1/rewards', choiceReward(eur, { currency: 'EUR', fundingCurrency: 'USD' }));
    expect(within.status).toBe(201);
  });

  it('50 parallel sends against a daily limit that allows 10: exactly 10 go, the ledger balances', async () => {
    const m = await seedMerchant(t);
    await fund(t, m, 100_000);
    const { secret } = await makeKey(m, { dailyLimitCents: 1_000 });
    const answers = await Promise.all(Array.from({ length: 50 }, () => t.api.as(secret).post('/v1/rewards', choiceReward(100))));
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 422)).toHaveLength(40);
    for (const refused of answers.filter((res) => res.status === 422)) expect(refused.body).toMatchObject({ error: 'validation', message: expect.stringContaining('dailyLimitCents') });
    const figures = await expectLedgerInvariants(db, m.accountId);
    expect(figures.reserved).toBe(1_000);
    expect(figures.available).toBe(99_000);
    const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM rewards WHERE account_id = $1`, [m.accountId]);
    expect(n).toBe(10);
  });

  it('the daily limit is a rolling 24 hours: sends older than that no longer count', async () => {
    const m = await seedMerchant(t);
    await fund(t, m, 100_000);
    const { secret, apiKey } = await makeKey(m, { dailyLimitCents: 1_000 });
    expect((await t.api.as(secret).post('/v1/rewards', choiceReward(1_000))).status).toBe(201);
    expect((await t.api.as(secret).post('/v1/rewards', choiceReward(1))).status).toBe(422);
    await db.query(`UPDATE rewards SET created_at = now() - interval '24 hours 1 minute' WHERE created_by_id = $1`, [apiKey.id]);
    expect((await t.api.as(secret).post('/v1/rewards', choiceReward(1_000))).status).toBe(201);
  });

  it("the 24 hours are the service's clock, as the sends' createdAt: a day on by it, the limit is free again", async () => {
    const m = await seedMerchant(t);
    await fund(t, m, 100_000);
    const { secret } = await makeKey(m, { dailyLimitCents: 1_000 });
    // Three days ahead of the wall clock and the database's.
    clock.freeze(new Date(Date.now() + 3 * 86_400_000));
    expect((await t.api.as(secret).post('/v1/rewards', choiceReward(1_000))).status).toBe(201);
    clock.advance(24 * 3_600_000 - 60_000);
    expect((await t.api.as(secret).post('/v1/rewards', choiceReward(1))).status).toBe(422);
    clock.advance(2 * 60_000);
    expect((await t.api.as(secret).post('/v1/rewards', choiceReward(1_000))).status).toBe(201);
  });

  it('bulk items are checked one by one: those over a limit fail, the rest go', async () => {
    const m = await seedMerchant(t);
    await fund(t, m, 100_000);
    const { secret } = await makeKey(m, { maxRewardCents: 600, dailyLimitCents: 1_000 });
    const res = await t.api.as(secret).post('/v1/rewards/bulk', { rewards: [choiceReward(500), choiceReward(700), choiceReward(400), choiceReward(200), choiceReward(100)] });
    expect(res.status).toBe(207);
    const results = res.body.results as { ok: boolean; error: string | null }[];
    expect(results.map((r) => r.ok)).toEqual([true, false, true, false, true]);
    expect(results[1].error).toContain('maxRewardCents');
    expect(results[3].error).toContain('dailyLimitCents');
    expect((await wallet(m)).availableCents).toBe(100_000 - 1_000);
    await expectLedgerInvariants(db, m.accountId);
  });
});
