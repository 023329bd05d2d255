import { DataSource } from 'typeorm';
import { Sweepers } from '@app/core';
import { CardIssuanceService, RewardBackgroundJobs } from '@app/rewards';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { eventually } from '../support/processes';
import { CatalogPicks, catalogPicks, choiceReward, countRows, fixedReward, fund } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { clockOverride, TestClock } from '../support/test-clock';

describe('reward lifecycle: list, read, cancel, resend, failures, expiry', () => {
  let t: TestApp;
  /** The clock of `t` and its worker sides (paused keeps the wall clock): the expiry tests move it on. */
  const clock = new TestClock();
  /** The worker side of `t`. */
  let worker: TestWorker;
  /** No worker side: cards stay PENDING until a test issues them itself. */
  let paused: TestApp;
  /** A second worker side on the same database, for races between workers. */
  let secondWorker: TestWorker;
  let dataSource: DataSource;
  let picks: CatalogPicks;
  const merchants: SeededMerchant[] = [];

  const newMerchant = async (app: TestApp, fundsCents: number) => {
    const m = await seedMerchant(app);
    merchants.push(m);
    await fund(app, m, fundsCents);
    return m;
  };
  const wallet = async (app: TestApp, m: SeededMerchant) => (await app.api.as(m.key).get('/v1/wallet')).body.wallet;
  const reward = async (app: TestApp, m: SeededMerchant, id: string, query = '') =>
    (await app.api.as(m.key).get(`/v1/rewards/${id}${query}`)).body.reward;
  const settled = (app: TestApp, m: SeededMerchant, id: string, status: string) =>
    eventually(async () => {
      const r = await reward(app, m, id);
      return r.status === status ? r : undefined;
    });

  beforeAll(async () => {
    t = await startTestApp({ overrides: [clockOverride(clock)] });
    worker = await startTestWorker(t);
    paused = await startTestApp();
    secondWorker = await startTestWorker(t);
    dataSource = t.app.get(DataSource);
    const m = await newMerchant(t, 100);
    picks = await catalogPicks(t, m.key);
  });
  afterEach(() => clock.reset());
  afterAll(async () => {
    for (const m of merchants) await expectLedgerInvariants(dataSource, m.accountId);
    await paused.close();
    await secondWorker.close();
    await worker.close();
    await t.close();
  });

  it('the API app runs no processors or scheduled jobs; the worker side composed beside it does', () => {
    for (const api of [t, paused]) {
      expect(() => api.app.get(CardIssuanceService)).toThrow();
      expect(() => api.app.get(RewardBackgroundJobs)).toThrow();
      expect(() => api.app.get(Sweepers)).toThrow();
    }
    expect(worker.app.get(CardIssuanceService)).toBeInstanceOf(CardIssuanceService);
    expect(worker.app.get(RewardBackgroundJobs)).toBeInstanceOf(RewardBackgroundJobs);
    expect(worker.app.get(Sweepers).names()).toEqual(expect.arrayContaining(['reward-expiry', 'reward-job-sweeper']));
  });

  it('lists newest first, filters by status and external_id, paginates with total', async () => {
    const m = await newMerchant(t, 100_000);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.api.as(m.key).post('/v1/rewards', choiceReward(1_000, { externalId: i % 2 ? 'odd' : 'even' }));
      ids.push(res.body.reward.id);
    }
    await t.api.as(m.key).post(`/v1/rewards/${ids[0]}/cancel`);
    const api = t.api.as(m.readKey);

    const all = await api.get('/v1/rewards');
    expect(all.body).toMatchObject({ total: 5, page: 1, pageSize: 25 });
    expect(all.body.rewards.map((r: any) => r.id)).toEqual([...ids].reverse());

    const page2 = await api.get('/v1/rewards?page=2&page_size=2');
    expect(page2.body).toMatchObject({ total: 5, page: 2, pageSize: 2 });
    expect(page2.body.rewards.map((r: any) => r.id)).toEqual([ids[2], ids[1]]);

    expect((await api.get('/v1/rewards?status=CANCELED')).body.rewards.map((r: any) => r.id)).toEqual([ids[0]]);
    const odd = await api.get('/v1/rewards?external_id=odd');
    expect(odd.body.total).toBe(2);
    expect(odd.body.rewards.map((r: any) => r.id)).toEqual([ids[3], ids[1]]);
    expect((await api.get('/v1/rewards?status=REDEEMED&external_id=odd')).body).toMatchObject({ total: 0, rewards: [] });

    for (const query of ['status=DONE', 'page=0', 'page_size=101', 'page_size=0', 'nope=1']) {
      expect((await api.get(`/v1/rewards?${query}`)).status).toBe(400);
    }
  });

  it("404 for an unknown reward and for another account's reward", async () => {
    const [a, b] = [await newMerchant(t, 5_000), await newMerchant(t, 5_000)];
    const res = await t.api.as(a.key).post('/v1/rewards', choiceReward(1_000));
    const id = res.body.reward.id;
    for (const path of [`/v1/rewards/${id}`, '/v1/rewards/rw_unknown']) {
      const got = await t.api.as(b.key).get(path);
      expect(got.status).toBe(404);
      expect(got.body.error).toBe('not_found');
    }
    expect((await t.api.as(b.key).post(`/v1/rewards/${id}/cancel`)).status).toBe(404);
    expect((await t.api.as(b.key).post(`/v1/rewards/${id}/resend`)).status).toBe(404);
    expect((await reward(t, a, id)).status).toBe('SENT');
  });

  it('masks credentials unless include_credentials=true, which needs rewards:write', async () => {
    const m = await newMerchant(t, 100_000);
    const id = (await t.api.as(m.key).post('/v1/rewards', fixedReward(picks.fixedUsd))).body.reward.id;
    await settled(t, m, id, 'REDEEMED');
    const masked = (await t.api.as(m.readKey).get(`/v1/rewards/${id}`)).body.reward.issuedCards[0].credentials;
    const full = (await t.api.as(m.key).get(`/v1/rewards/${id}?include_credentials=true`)).body.reward.issuedCards[0].credentials;
    const code = full.find((c: any) => c.type === 'text');
    const maskedCode = masked.find((c: any) => c.type === 'text');
    expect(code.value).not.toContain('•');
    expect(maskedCode.value).toBe(`${'•'.repeat(code.value.length - 4)}${code.value.slice(-4)}`);
    expect(masked.find((c: any) => c.type === 'date').value).toBe(full.find((c: any) => c.type === 'date').value);
    const denied = await t.api.as(m.readKey).get(`/v1/rewards/${id}?include_credentials=true`);
    expect(denied.status).toBe(403);
    expect((await t.api.as(m.readKey).get(`/v1/rewards/${id}?include_credentials=maybe`)).status).toBe(400);
  });

  it('cancels a CHOICE reward: remaining value back to the wallet, reward.canceled, then 422 on a second cancel', async () => {
    const m = await newMerchant(t, 10_000);
    const id = (await t.api.as(m.key).post('/v1/rewards', choiceReward(4_000))).body.reward.id;
    const res = await t.api.as(m.key).post(`/v1/rewards/${id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body.reward).toMatchObject({ status: 'CANCELED', remainingValueCents: 0 });
    expect(res.body.reward.events.map((e: any) => e.type)).toEqual(['reward.created', 'reward.sent', 'reward.canceled']);
    expect(await wallet(t, m)).toMatchObject({ availableCents: 10_000, reservedCents: 0 });
    const again = await t.api.as(m.key).post(`/v1/rewards/${id}/cancel`);
    expect(again.status).toBe(422);
    expect(again.body).toMatchObject({ error: 'validation', message: expect.stringContaining('CANCELED') });
    expect(await wallet(t, m)).toMatchObject({ availableCents: 10_000, reservedCents: 0 });
  });

  it('a redeemed reward cannot be cancelled (422) and keeps its card', async () => {
    const m = await newMerchant(t, 100_000);
    const id = (await t.api.as(m.key).post('/v1/rewards', fixedReward(picks.fixedUsd))).body.reward.id;
    await settled(t, m, id, 'REDEEMED');
    const res = await t.api.as(m.key).post(`/v1/rewards/${id}/cancel`);
    expect(res.status).toBe(422);
    expect((await reward(t, m, id)).issuedCards[0].status).toBe('ISSUED');
  });

  it('cancelling a FIXED reward whose card is PENDING cancels the card; its issuance then issues nothing', async () => {
    const m = await newMerchant(paused, 100_000);
    const created = (await paused.api.as(m.key).post('/v1/rewards', fixedReward(picks.fixedUsd))).body.reward;
    const res = await paused.api.as(m.key).post(`/v1/rewards/${created.id}/cancel`);
    expect(res.body.reward).toMatchObject({ status: 'CANCELED' });
    expect(res.body.reward.issuedCards[0].status).toBe('CANCELED');
    expect(await worker.app.get(CardIssuanceService).issue(created.issuedCards[0].id)).toBe('skipped');
    expect(await wallet(paused, m)).toMatchObject({ availableCents: 100_000, reservedCents: 0 });
  });

  it('a cancel racing the issuance of a FIXED card never leaves both a card and a refund', async () => {
    const m = await newMerchant(paused, 1_000_000);
    const issuance = worker.app.get(CardIssuanceService);
    for (let i = 0; i < 10; i++) {
      const created = (await paused.api.as(m.key).post('/v1/rewards', fixedReward(picks.fixedUsd))).body.reward;
      const [cancel] = await Promise.all([
        paused.api.as(m.key).post(`/v1/rewards/${created.id}/cancel`),
        issuance.issue(created.issuedCards[0].id),
      ]);
      const after = await reward(paused, m, created.id);
      const card = after.issuedCards[0];
      if (cancel.status === 200) {
        expect([after.status, card.status]).toEqual(['CANCELED', 'CANCELED']);
      } else {
        expect(cancel.status).toBe(422);
        expect([after.status, card.status]).toEqual(['REDEEMED', 'ISSUED']);
      }
      const moves = await dataSource.query(
        `SELECT kind FROM wallet_transactions WHERE related_id = $1 AND kind IN ('CAPTURE', 'RELEASE')`,
        [card.id],
      );
      expect(moves).toHaveLength(1);
    }
    await expectLedgerInvariants(dataSource, m.accountId);
  });

  it('a FIXED card that fails to issue: card.failed, value back to the wallet, reward CANCELED without reward.canceled', async () => {
    const m = await newMerchant(t, 10_000);
    const id = (await t.api.as(m.key).post('/v1/rewards', fixedReward(picks.failingFixed))).body.reward.id;
    const failed = await settled(t, m, id, 'CANCELED');
    expect(failed.issuedCards[0].status).toBe('FAILED');
    expect(failed.events.map((e: any) => e.type)).toEqual(['reward.created', 'reward.sent', 'card.failed']);
    expect(await wallet(t, m)).toMatchObject({ availableCents: 10_000, reservedCents: 0 });
    const [event] = await dataSource.query(`SELECT data FROM events WHERE type = 'card.failed' AND data->>'rewardId' = $1`, [id]);
    expect(event.data).toEqual({ rewardId: id, card: expect.objectContaining({ status: 'FAILED', utid: picks.failingFixed.utid }) });
  });

  it('resend queues the e-mail again in any state and adds reward.resent to the timeline', async () => {
    const m = await newMerchant(t, 10_000);
    const id = (await t.api.as(m.key).post('/v1/rewards', choiceReward(1_000))).body.reward.id;
    await t.api.as(m.key).post(`/v1/rewards/${id}/cancel`);
    const res = await t.api.as(m.key).post(`/v1/rewards/${id}/resend`);
    expect(res.status).toBe(200);
    expect(res.body.reward.events.map((e: any) => e.type)).toEqual(['reward.created', 'reward.sent', 'reward.canceled', 'reward.resent']);
    await eventually(async () => (await countRows(dataSource, `SELECT 1 FROM mail_jobs WHERE reward_id = $1 AND status = 'SENT'`, [id])) === 2);
    // reward.resent is part of the timeline only, not a webhook event.
    expect(await countRows(dataSource, `SELECT 1 FROM events WHERE type = 'reward.resent'`, [])).toBe(0);
  });

  it("a reward's times are the service's clock: created, sent, opened, picked, issued, redeemed, resent, and the list's creation range", async () => {
    const m = await newMerchant(t, 10_000);
    // Three days ahead of the wall clock (and the database's): a time read from either would not match.
    const at = new Date(Date.now() + 3 * 86_400_000);
    clock.freeze(at);
    const iso = at.toISOString();
    const created = await t.api.as(m.key).post('/v1/rewards', choiceReward(picks.fixedUsd.valueCents));
    expect(created.status).toBe(201);
    const id = created.body.reward.id;
    expect(created.body.reward).toMatchObject({ createdAt: iso, sentAt: iso });

    // The recipient opens the link, then picks the whole value; the worker (same clock) issues the card.
    const link = `${t.baseUrl}/r/${created.body.redemptionUrl.split('/r/')[1]}`;
    expect((await fetch(`${link}/api`)).status).toBe(200);
    const pick = await fetch(`${link}/api/cards`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ utid: picks.fixedUsd.utid, amountCents: picks.fixedUsd.valueCents }),
    });
    expect(pick.status).toBe(201);
    const redeemed = await settled(t, m, id, 'REDEEMED');
    expect(redeemed).toMatchObject({ createdAt: iso, sentAt: iso, openedAt: iso, redeemedAt: iso });
    expect(redeemed.issuedCards.map((c: any) => [c.createdAt, c.issuedAt])).toEqual([[iso, iso]]);
    expect(redeemed.events.map((e: any) => [e.type, e.createdAt])).toEqual([
      ['reward.created', iso],
      ['reward.sent', iso],
      ['reward.opened', iso],
      ['reward.partially_redeemed', iso],
      ['card.issued', iso],
      ['reward.redeemed', iso],
    ]);

    clock.advance(60_000);
    const resent = await t.api.as(m.key).post(`/v1/rewards/${id}/resend`);
    expect(resent.body.reward.events.at(-1)).toMatchObject({ type: 'reward.resent', createdAt: new Date(at.getTime() + 60_000).toISOString() });

    // The creation range finds it around the clock's instant (created_lt defaults to the clock's now), not before it.
    const listed = async (query: string) => (await t.api.as(m.readKey).get(`/v1/rewards?${query}`)).body.rewards.map((r: any) => r.id);
    expect(await listed(`created_gte=${new Date(at.getTime() - 1_000).toISOString()}`)).toEqual([id]);
    expect(await listed(`created_lt=${iso}`)).toEqual([]);
  });

  it('expiry: due rewards become EXPIRED once, value returned, with several workers sweeping at once', async () => {
    const m = await newMerchant(paused, 50_000);
    const soon = new Date(Date.now() + 60_000).toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      ids.push((await paused.api.as(m.key).post('/v1/rewards', choiceReward(1_000, { expiresAt: soon }))).body.reward.id);
    }
    const later = (await paused.api.as(m.key).post('/v1/rewards', choiceReward(1_000, { expiresAt: new Date(Date.now() + 3_600_000).toISOString() }))).body.reward.id;
    // The workers' clock two minutes on: past `soon`, well before `later`.
    clock.advance(120_000);

    // Three sweepers at once, as three workers would.
    const sweepers = [worker, secondWorker, worker].map((side) => side.app.get(RewardBackgroundJobs));
    const counts = await Promise.all(sweepers.map((sweeper) => sweeper.expireDue(5)));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(12);

    for (const id of ids) {
      const r = await reward(paused, m, id);
      expect(r).toMatchObject({ status: 'EXPIRED', remainingValueCents: 0 });
      expect(r.events.filter((e: any) => e.type === 'reward.expired')).toHaveLength(1);
    }
    expect((await reward(paused, m, later)).status).toBe('SENT');
    expect(await wallet(paused, m)).toMatchObject({ availableCents: 49_000, reservedCents: 1_000 });
    expect((await paused.api.as(m.key).post(`/v1/rewards/${ids[0]}/cancel`)).status).toBe(422);
  });

  it('expiry leaves a reward whose value is all in pending cards: it becomes REDEEMED when they issue', async () => {
    const m = await newMerchant(paused, 20_000);
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    const created = await paused.api.as(m.key).post('/v1/rewards', choiceReward(picks.fixedUsd.valueCents, { expiresAt }));
    // Due at the same time, with value left: the sweep below does expire this one.
    const unpicked = (await paused.api.as(m.key).post('/v1/rewards', choiceReward(1_000, { expiresAt }))).body.reward.id;
    const token = created.body.redemptionUrl.split('/r/')[1];
    const pick = await fetch(`${paused.baseUrl}/r/${token}/api/cards`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ utid: picks.fixedUsd.utid, amountCents: picks.fixedUsd.valueCents }),
    });
    expect(pick.status).toBe(201);
    const { card } = (await pick.json()) as { card: { id: string } };
    // Both fall due by moving their expiry back, not the clock on: a clock two minutes on would make the new card
    // look lost to the workers' issuance sweep (it measures a card's age on that clock), which could issue it first.
    await dataSource.query(`UPDATE rewards SET expires_at = now() - interval '1 minute' WHERE id = ANY($1)`, [[created.body.reward.id, unpicked]]);

    await worker.app.get(RewardBackgroundJobs).expireDue();
    expect((await reward(paused, m, unpicked)).status).toBe('EXPIRED');
    expect((await reward(paused, m, created.body.reward.id)).status).toBe('PARTIALLY_REDEEMED');
    expect(await worker.app.get(CardIssuanceService).issue(card.id)).toBe('issued');
    const done = await reward(paused, m, created.body.reward.id);
    expect(done.status).toBe('REDEEMED');
    expect(done.events.map((e: any) => e.type)).not.toContain('reward.expired');
  });

  it('the account overview counts rewards and issued value from real data', async () => {
    const m = await newMerchant(t, 100_000);
    const fixed = (await t.api.as(m.key).post('/v1/rewards', fixedReward(picks.fixedUsd))).body.reward.id;
    await t.api.as(m.key).post('/v1/rewards', choiceReward(2_000));
    const canceled = (await t.api.as(m.key).post('/v1/rewards', choiceReward(3_000))).body.reward.id;
    await t.api.as(m.key).post(`/v1/rewards/${canceled}/cancel`);
    await settled(t, m, fixed, 'REDEEMED');
    const overview = (await t.api.as(m.readKey).get('/v1/account/overview')).body;
    expect(overview).toEqual({
      wallet: { availableCents: 100_000 - picks.fixedUsd.valueCents - 2_000, reservedCents: 2_000, currency: 'USD' },
      stats: { totalRewards: 3, activeRewards: 1, redeemedRewards: 1, totalIssuedCents: picks.fixedUsd.valueCents },
      wallets: [{ availableCents: 100_000 - picks.fixedUsd.valueCents - 2_000, reservedCents: 2_000, currency: 'USD' }],
      statsByCurrency: [{ currency: 'USD', totalIssuedCents: picks.fixedUsd.valueCents, activeValueCents: 2_000 }],
    });
  });
});
