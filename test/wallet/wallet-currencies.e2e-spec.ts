import { DataSource } from 'typeorm';
import { expectLedgerInvariants, expectLedgerInvariantsEverywhere } from '../support/ledger-invariants';
import { eventually } from '../support/processes';
import { catalogPicks, choiceReward, fixedReward } from '../support/rewards';
import { isolatedDatabase, SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * One wallet per currency over HTTP (docs/currencies.md, Wallets), with the worker side running
 * (cards issued, events delivered), on a database of its own: its relay delivers every event of it.
 */
describe('wallets per currency', () => {
  let t: TestApp;
  let worker: TestWorker;
  let receiver: WebhookReceiver;
  let dataSource: DataSource;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await startTestApp({ env: { ...(await isolatedDatabase()), WEBHOOK_RETRY_BASE_MS: '50' } });
    worker = await startTestWorker(t);
    dataSource = t.app.get(DataSource);
  });
  afterAll(async () => {
    await expectLedgerInvariantsEverywhere(dataSource);
    await worker.close();
    await t.close();
    await receiver.close(); // fails the suite if a delivery broke the contract
  });

  const topUp = async (m: SeededMerchant, amountCents: number, currency?: string) => {
    const res = await t.api.as(m.key).post('/v1/topups', { amountCents, ...(currency ? { currency } : {}) });
    expect(res.status).toBe(201);
    return res.body.topup;
  };

  it('the primary wallet is listed with zeros before any money; others open with their first top-up, primary first then by code', async () => {
    const m = await seedMerchant(t);
    const list = () => t.api.as(m.readKey).get('/v1/wallets');
    expect((await list()).body).toEqual({ wallets: [{ currency: 'USD', availableCents: 0, reservedCents: 0 }] });

    expect(await topUp(m, 2_500, 'GBP')).toMatchObject({ amountCents: 2_500, currency: 'GBP', status: 'SUCCEEDED' });
    await topUp(m, 1_000, 'EUR');
    await topUp(m, 300);
    expect((await list()).body.wallets).toEqual([
      { currency: 'USD', availableCents: 300, reservedCents: 0 },
      { currency: 'EUR', availableCents: 1_000, reservedCents: 0 },
      { currency: 'GBP', availableCents: 2_500, reservedCents: 0 },
    ]);
    // Existing clients see the primary wallet exactly as before.
    expect((await t.api.as(m.readKey).get('/v1/wallet')).body).toEqual({ wallet: { currency: 'USD', availableCents: 300, reservedCents: 0 } });
    expect((await t.api.as(m.writeKey).get('/v1/wallets')).status).toBe(403);
    expect((await t.api.get('/v1/wallets')).status).toBe(401);

    const all = await t.api.as(m.readKey).get('/v1/wallet/transactions');
    expect(all.body.total).toBe(3);
    expect(all.body.transactions.map((x: any) => [x.currency, x.kind, x.availableDeltaCents])).toEqual([
      ['USD', 'TOPUP', 300],
      ['EUR', 'TOPUP', 1_000],
      ['GBP', 'TOPUP', 2_500],
    ]);
    const eur = await t.api.as(m.readKey).get('/v1/wallet/transactions?currency=EUR');
    expect(eur.body).toMatchObject({ total: 1, hasMore: false });
    expect(eur.body.transactions.map((x: any) => x.currency)).toEqual(['EUR']);
    const cad = await t.api.as(m.readKey).get('/v1/wallet/transactions?currency=CAD');
    expect(cad.body).toEqual({ transactions: [], total: 0, hasMore: false });
    await expectLedgerInvariants(dataSource, m.accountId);
  });

  it('pages through one currency’s ledger with its own total and cursors', async () => {
    const m = await seedMerchant(t);
    for (let i = 1; i <= 5; i++) {
      await topUp(m, 100 * i, 'EUR');
      await topUp(m, 100 * i);
    }
    const first = await t.api.as(m.readKey).get('/v1/wallet/transactions?currency=EUR&page_size=2');
    expect(first.body.total).toBe(5);
    expect(first.body.transactions.map((x: any) => x.availableDeltaCents)).toEqual([500, 400]);
    const next = await t.api.as(m.readKey).get(`/v1/wallet/transactions?currency=EUR&page_size=2&starting_after=${first.body.transactions[1].id}`);
    expect(next.body.transactions.map((x: any) => x.availableDeltaCents)).toEqual([300, 200]);
    expect(next.body.hasMore).toBe(true);
    const third = await t.api.as(m.readKey).get('/v1/wallet/transactions?currency=EUR&page=3&page_size=2');
    expect(third.body).toMatchObject({ total: 5, hasMore: false });
    expect(third.body.transactions.map((x: any) => x.availableDeltaCents)).toEqual([100]);
  });

  it('wallet.credited names the currency of the wallet credited', async () => {
    const m = await seedMerchant(t);
    const hook = await t.api.as(m.key).post('/v1/webhook-endpoints', { url: receiver.url(`/credited-${m.accountId}`), events: ['wallet.credited'] });
    expect(hook.status).toBe(201);
    const eur = await topUp(m, 4_200, 'EUR');
    const usd = await topUp(m, 1_100);
    const received = await eventually(async () => {
      const got = receiver.at(`/credited-${m.accountId}`).map((r) => r.json.data);
      return got.length >= 2 ? got : undefined;
    }, 30_000);
    expect(received).toEqual(
      expect.arrayContaining([
        { topupId: eur.id, amountCents: 4_200, currency: 'EUR' },
        { topupId: usd.id, amountCents: 1_100, currency: 'USD' },
      ]),
    );
    expect(receiver.violations).toEqual([]);
  });

  it('the overview keeps `wallet` and `stats` (primary only) and adds `wallets` and `statsByCurrency`', async () => {
    const m = await seedMerchant(t);
    await topUp(m, 50_000);
    await topUp(m, 7_000, 'GBP');
    const picks = await catalogPicks(t, m.key);
    const choice = await t.api.as(m.key).post('/v1/rewards', choiceReward(3_000));
    expect(choice.status).toBe(201);
    const fixed = await t.api.as(m.key).post('/v1/rewards', fixedReward(picks.fixedUsd));
    expect(fixed.status).toBe(201);
    // The FIXED reward's card is issued by the worker.
    await eventually(async () => (await t.api.as(m.readKey).get(`/v1/rewards/${fixed.body.reward.id}`)).body.reward.status === 'REDEEMED' || undefined, 30_000);

    const overview = await t.api.as(m.readKey).get('/v1/account/overview');
    expect(overview.status).toBe(200);
    const usdLeft = 50_000 - 3_000 - picks.fixedUsd.valueCents;
    expect(overview.body).toEqual({
      wallet: { currency: 'USD', availableCents: usdLeft, reservedCents: 3_000 },
      stats: { totalRewards: 2, activeRewards: 1, redeemedRewards: 1, totalIssuedCents: picks.fixedUsd.valueCents },
      wallets: [
        { currency: 'USD', availableCents: usdLeft, reservedCents: 3_000 },
        { currency: 'GBP', availableCents: 7_000, reservedCents: 0 },
      ],
      statsByCurrency: [
        { currency: 'USD', totalIssuedCents: picks.fixedUsd.valueCents, activeValueCents: 3_000 },
        { currency: 'GBP', totalIssuedCents: 0, activeValueCents: 0 },
      ],
    });

    // Cancelling the CHOICE reward returns its value to USD and ends its active value.
    expect((await t.api.as(m.key).post(`/v1/rewards/${choice.body.reward.id}/cancel`)).status).toBe(200);
    const after = await t.api.as(m.readKey).get('/v1/account/overview');
    expect(after.body.statsByCurrency[0]).toEqual({ currency: 'USD', totalIssuedCents: picks.fixedUsd.valueCents, activeValueCents: 0 });
    expect(after.body.wallet).toEqual({ currency: 'USD', availableCents: usdLeft + 3_000, reservedCents: 0 });
    await expectLedgerInvariants(dataSource, m.accountId);
  });

  it('an account in another primary currency: its wallet, its rewards and its stats are in that currency', async () => {
    const m = await seedMerchant(t, { currency: 'EUR' });
    await topUp(m, 10_000);
    await topUp(m, 1_000, 'USD');
    expect((await t.api.as(m.key).post('/v1/rewards', choiceReward(2_500))).status).toBe(201);
    const overview = (await t.api.as(m.readKey).get('/v1/account/overview')).body;
    expect(overview.wallet).toEqual({ currency: 'EUR', availableCents: 7_500, reservedCents: 2_500 });
    expect(overview.wallets.map((w: any) => w.currency)).toEqual(['EUR', 'USD']);
    expect(overview.statsByCurrency).toEqual([
      { currency: 'EUR', totalIssuedCents: 0, activeValueCents: 2_500 },
      { currency: 'USD', totalIssuedCents: 0, activeValueCents: 0 },
    ]);
  });
});
