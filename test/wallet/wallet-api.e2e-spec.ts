import { DataSource } from 'typeorm';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

describe('wallet, transactions and fake top-ups over HTTP', () => {
  let t: TestApp;
  let merchant: SeededMerchant;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await seedMerchant(t);
  });
  afterAll(() => t.close());

  it('a new wallet is empty, in the account currency', async () => {
    const res = await t.api.as(merchant.readKey).get('/v1/wallet');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ wallet: { availableCents: 0, reservedCents: 0, currency: 'USD' } });
  });

  it('top up 500.00 in fake mode: settled at once, wallet credited, TOPUP transaction and top-up listed', async () => {
    const api = t.api.as(merchant.key);
    const res = await api.post('/v1/topups', { amountCents: 50_000 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      topup: {
        id: expect.stringMatching(/^tu_/),
        amountCents: 50_000,
        currency: 'USD',
        provider: 'fake',
        status: 'SUCCEEDED',
        createdAt: expect.any(String),
        completedAt: expect.any(String),
      },
      checkoutUrl: null,
      paymentsMode: 'fake',
    });
    const topupId = res.body.topup.id;
    expect(Date.parse(res.body.topup.completedAt)).toBeGreaterThanOrEqual(Date.parse(res.body.topup.createdAt));

    expect((await api.get('/v1/wallet')).body.wallet).toEqual({ availableCents: 50_000, reservedCents: 0, currency: 'USD' });

    const transactions = await api.get('/v1/wallet/transactions');
    expect(transactions.body.total).toBe(1);
    expect(transactions.body.transactions[0]).toEqual({
      id: expect.stringMatching(/^wtx_/),
      currency: 'USD',
      kind: 'TOPUP',
      availableDeltaCents: 50_000,
      reservedDeltaCents: 0,
      description: expect.stringContaining(topupId),
      relatedType: 'topup',
      relatedId: topupId,
      createdAt: expect.any(String),
    });

    const topups = await api.get('/v1/topups');
    expect(topups.body.total).toBe(1);
    expect(topups.body.topups[0].id).toBe(topupId);

    const overview = await api.get('/v1/account/overview');
    expect(overview.status).toBe(200);
    expect(overview.body).toEqual({
      wallet: { availableCents: 50_000, reservedCents: 0, currency: 'USD' },
      stats: { totalRewards: 0, activeRewards: 0, redeemedRewards: 0, totalIssuedCents: 0 },
      wallets: [{ availableCents: 50_000, reservedCents: 0, currency: 'USD' }],
      statsByCurrency: [{ currency: 'USD', totalIssuedCents: 0, activeValueCents: 0 }],
    });

    // The settled top-up recorded its wallet.credited event in the same transaction.
    const events = await t.app.get(DataSource).query(`SELECT type, data FROM events WHERE account_id = $1`, [merchant.accountId]);
    expect(events).toEqual([{ type: 'wallet.credited', data: { topupId, amountCents: 50_000, currency: 'USD' } }]);
    await expectLedgerInvariants(t.app.get(DataSource), merchant.accountId);
  });

  it.each([
    [{ amountCents: 99 }, 'amountCents'],
    [{ amountCents: 100_000_001 }, 'amountCents'],
    [{ amountCents: 10.5 }, 'amountCents'],
    [{ amountCents: '1000' }, 'amountCents'],
    [{}, 'amountCents'],
    [{ amountCents: 1000, currency: 'eur' }, 'currency'],
    [{ amountCents: 1000, currency: 'XYZ' }, 'currency'],
    [{ amountCents: 1000, currency: 'EURO' }, 'currency'],
  ])('refuses top-up %j with 400 naming %s, and credits nothing', async (body, field) => {
    const m = await seedMerchant(t);
    const res = await t.api.as(m.key).post('/v1/topups', body);
    expect(res.status).toBe(400);
    expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(field);
    expect((await t.api.as(m.key).get('/v1/wallet')).body.wallet.availableCents).toBe(0);
  });

  it('top-ups need write; reading the wallet needs read', async () => {
    expect((await t.api.as(merchant.readKey).post('/v1/topups', { amountCents: 1000 })).status).toBe(403);
    expect((await t.api.as(merchant.writeKey).get('/v1/wallet')).status).toBe(403);
    expect((await t.api.as(merchant.writeKey).get('/v1/topups')).status).toBe(403);
    expect((await t.api.get('/v1/wallet')).status).toBe(401);
  });

  it('lists transactions and top-ups newest first with page and page_size', async () => {
    const m = await seedMerchant(t);
    const api = t.api.as(m.key);
    const amounts = [100, 200, 300, 400, 500, 600, 700];
    for (const amountCents of amounts) expect((await api.post('/v1/topups', { amountCents })).status).toBe(201);

    const first = await api.get('/v1/wallet/transactions?page_size=3');
    expect(first.body.total).toBe(7);
    expect(first.body.transactions.map((x: any) => x.availableDeltaCents)).toEqual([700, 600, 500]);
    const third = await api.get('/v1/wallet/transactions?page=3&page_size=3');
    expect(third.body.transactions.map((x: any) => x.availableDeltaCents)).toEqual([100]);
    const beyond = await api.get('/v1/wallet/transactions?page=9&page_size=3');
    expect(beyond.body).toEqual({ transactions: [], total: 7, hasMore: false });

    const topups = await api.get('/v1/topups?page=2&page_size=5');
    expect(topups.body.topups.map((x: any) => x.amountCents)).toEqual([200, 100]);
    expect(topups.body.total).toBe(7);
  });

  it('defaults: 50 transactions a page, 25 top-ups a page', async () => {
    const m = await seedMerchant(t);
    const api = t.api.as(m.key);
    for (let i = 0; i < 26; i++) await api.post('/v1/topups', { amountCents: 100 + i });
    expect((await api.get('/v1/topups')).body.topups).toHaveLength(25);
    expect((await api.get('/v1/wallet/transactions')).body.transactions).toHaveLength(26);
  });

  it.each(['page=0', 'page=-1', 'page=abc', 'page_size=0', 'page_size=101', 'page_size=2.5', 'extra=1'])(
    'refuses ?%s with 400',
    async (query) => {
      const res = await t.api.as(merchant.readKey).get(`/v1/wallet/transactions?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('bad_request');
      expect(res.body.issues.length).toBeGreaterThan(0);
    },
  );
});
