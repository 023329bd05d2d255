import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { FxRates } from '@app/fx';
import { e8, expectedFromAmount, marked, publishedSandboxRates } from '../support/fx';
import { expectLedgerInvariants, expectLedgerInvariantsEverywhere } from '../support/ledger-invariants';
import { connect, registerApp } from '../support/oauth';
import { clockOverride, TestClock } from '../support/test-clock';
import { isolatedDatabase, SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

/** Rates, quotes and conversions over HTTP with the sandbox rate source (docs/currencies.md). */
describe('FX: rates, quotes and conversions (sandbox rates)', () => {
  const clock = new TestClock();
  let t: TestApp;
  let dataSource: DataSource;
  const published = publishedSandboxRates();

  beforeAll(async () => {
    t = await startTestApp({ overrides: [clockOverride(clock)] });
    dataSource = t.app.get(DataSource);
  });
  afterAll(async () => {
    await expectLedgerInvariantsEverywhere(dataSource);
    await t.close();
  });
  afterEach(() => clock.reset());

  const topUp = async (m: SeededMerchant, amountCents: number, currency?: string) => {
    const res = await t.api.as(m.key).post('/v1/topups', { amountCents, ...(currency ? { currency } : {}) });
    expect(res.status).toBe(201);
  };
  const wallets = async (m: SeededMerchant) => (await t.api.as(m.readKey).get('/v1/wallets')).body.wallets;
  const quote = async (m: SeededMerchant, from: string, to: string, toAmountCents: number) => {
    const res = await t.api.as(m.key).post('/v1/fx/quotes', { from, to, toAmountCents });
    expect(res.status).toBe(201);
    return res.body.quote;
  };
  const convert = (m: SeededMerchant, quoteId: string, key?: string) =>
    t.api.as(m.key).post('/v1/fx/conversions', { quoteId }, key ? { headers: { 'Idempotency-Key': key } } : {});

  it('lists every pair of the sandbox table as docs/currencies.md publishes it, dated by the refresh at start', async () => {
    const m = await seedMerchant(t);
    const res = await t.api.as(m.readKey).get('/v1/fx/rates');
    expect(res.status).toBe(200);
    const listed = Object.fromEntries(res.body.rates.map((r: any) => [`${r.from}>${r.to}`, r]));
    const expected = Object.entries(published).flatMap(([from, row]) => Object.entries(row).map(([to, rate]) => [`${from}>${to}`, rate] as const));
    expect(expected).toHaveLength(12);
    expect(Object.keys(listed).sort()).toEqual(expected.map(([pair]) => pair).sort());
    for (const [pair, rate] of expected) {
      // No markup by default: the merchant's rate is the mid rate.
      expect(listed[pair]).toMatchObject({ rate: Number(rate), midRate: Number(rate) });
      expect(Date.now() - Date.parse(listed[pair].asOf)).toBeLessThan(10 * 60_000);
    }

    const fromUsd = await t.api.as(m.readKey).get('/v1/fx/rates?from=USD');
    expect(fromUsd.body.rates.map((r: any) => r.to).sort()).toEqual(['CAD', 'EUR', 'GBP']);
    for (const bad of ['usd', 'XYZ', 'US', 'USDX']) {
      const refused = await t.api.as(m.readKey).get(`/v1/fx/rates?from=${bad}`);
      expect(refused.status).toBe(400);
      expect(refused.body.issues.map((i: any) => i.path)).toEqual(['from']);
    }
  });

  it('a quote charges ceil(toAmountCents / rate), binds for 60 s on the service clock, and moves no money', async () => {
    const m = await seedMerchant(t);
    clock.freeze();
    const q = await quote(m, 'USD', 'GBP', 10_000);
    expect(q).toEqual({
      id: expect.stringMatching(/^fxq_/),
      from: 'USD',
      to: 'GBP',
      rate: Number(published.USD.GBP),
      midRate: Number(published.USD.GBP),
      fromAmountCents: expectedFromAmount(10_000, published.USD.GBP),
      toAmountCents: 10_000,
      expiresAt: new Date(clock.now().getTime() + 60_000).toISOString(),
    });
    expect(q.fromAmountCents).toBe(12_659); // 12,658.23 rounded up, the example of docs/currencies.md
    expect(await wallets(m)).toEqual([{ currency: 'USD', availableCents: 0, reservedCents: 0 }]);
  });

  it('rounding never favours the merchant by a cent, for any pair and amount', async () => {
    const m = await seedMerchant(t);
    const pairs = Object.entries(published).flatMap(([from, row]) => Object.keys(row).map((to) => [from, to]));
    let seed = 7;
    const random = () => ((seed = (seed * 48271) % 2_147_483_647) / 2_147_483_647);
    for (let i = 0; i < 36; i++) {
      const [from, to] = pairs[i % pairs.length];
      const toAmountCents = 1 + Math.floor(random() * (i % 3 === 0 ? 1_000 : 100_000_000));
      const q = await quote(m, from, to, toAmountCents);
      const rate = e8(q.rate);
      // Enough to buy the amount at the quoted rate, and one cent less would not be.
      expect(BigInt(q.fromAmountCents) * rate).toBeGreaterThanOrEqual(BigInt(toAmountCents) * 100_000_000n);
      expect(BigInt(q.fromAmountCents - 1) * rate).toBeLessThan(BigInt(toAmountCents) * 100_000_000n);
    }
  });

  it('converts at the quote: both wallets move in one go, the ledger shows both rows, the audit log the conversion', async () => {
    const m = await seedMerchant(t);
    await topUp(m, 20_000);
    const q = await quote(m, 'USD', 'GBP', 10_000);
    const key = randomUUID();
    const res = await convert(m, q.id, key);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      conversion: {
        id: expect.stringMatching(/^fxc_/),
        quoteId: q.id,
        from: 'USD',
        to: 'GBP',
        rate: q.rate,
        fromAmountCents: q.fromAmountCents,
        toAmountCents: 10_000,
        createdAt: expect.any(String),
      },
    });
    const conversionId = res.body.conversion.id;
    expect(await wallets(m)).toEqual([
      { currency: 'USD', availableCents: 20_000 - q.fromAmountCents, reservedCents: 0 },
      { currency: 'GBP', availableCents: 10_000, reservedCents: 0 },
    ]);

    const gbp = await t.api.as(m.readKey).get('/v1/wallet/transactions?currency=GBP');
    expect(gbp.body).toMatchObject({ total: 1, hasMore: false });
    expect(gbp.body.transactions[0]).toMatchObject({
      currency: 'GBP',
      kind: 'CONVERSION_IN',
      availableDeltaCents: 10_000,
      reservedDeltaCents: 0,
      relatedType: 'conversion',
      relatedId: conversionId,
    });
    const usd = await t.api.as(m.readKey).get('/v1/wallet/transactions?currency=USD');
    expect(usd.body.transactions.map((x: any) => [x.kind, x.availableDeltaCents])).toEqual([
      ['CONVERSION_OUT', -q.fromAmountCents],
      ['TOPUP', 20_000],
    ]);
    expect((await t.api.as(m.readKey).get('/v1/wallet/transactions')).body.total).toBe(3);
    // The primary wallet, as ever; the overview lists both.
    expect((await t.api.as(m.readKey).get('/v1/wallet')).body.wallet).toEqual({ currency: 'USD', availableCents: 20_000 - q.fromAmountCents, reservedCents: 0 });
    const overview = await t.api.as(m.readKey).get('/v1/account/overview');
    expect(overview.body.wallets.map((w: any) => w.currency)).toEqual(['USD', 'GBP']);

    const [audit] = await dataSource.query(`SELECT action, target_id, metadata FROM audit_log WHERE account_id = $1 AND action = 'fx_conversion.created'`, [
      m.accountId,
    ]);
    expect(audit).toEqual({
      action: 'fx_conversion.created',
      target_id: conversionId,
      metadata: { quoteId: q.id, from: 'USD', to: 'GBP', rate: published.USD.GBP, fromAmountCents: q.fromAmountCents, toAmountCents: 10_000 },
    });

    // The same key and body: the first answer again, nothing moved twice.
    const replay = await convert(m, q.id, key);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(res.body);
    // The same key with another body; the used quote without a key.
    const other = await quote(m, 'USD', 'EUR', 100);
    expect((await convert(m, other.id, key)).status).toBe(422);
    const again = await convert(m, q.id);
    expect(again.status).toBe(422);
    expect(again.body).toEqual({ error: 'validation', message: expect.stringContaining('already used') });
    expect(await wallets(m)).toEqual([
      { currency: 'USD', availableCents: 20_000 - q.fromAmountCents, reservedCents: 0 },
      { currency: 'GBP', availableCents: 10_000, reservedCents: 0 },
    ]);
    await expectLedgerInvariants(dataSource, m.accountId);
  });

  it('an expired quote is 422, one millisecond before expiry it converts', async () => {
    const m = await seedMerchant(t);
    await topUp(m, 5_000);
    clock.freeze();
    const late = await quote(m, 'USD', 'EUR', 1_000);
    const inTime = await quote(m, 'USD', 'CAD', 1_000);
    clock.advance(59_999);
    expect((await convert(m, inTime.id)).status).toBe(201);
    clock.advance(1);
    const expired = await convert(m, late.id);
    expect(expired.status).toBe(422);
    expect(expired.body).toEqual({ error: 'validation', message: expect.stringContaining('expired') });
    expect(await wallets(m)).toEqual([
      { currency: 'USD', availableCents: 5_000 - inTime.fromAmountCents, reservedCents: 0 },
      { currency: 'CAD', availableCents: 1_000, reservedCents: 0 },
    ]);
  });

  it('another account’s quote and an unknown one are 404; every wallet stays untouched', async () => {
    const owner = await seedMerchant(t);
    const thief = await seedMerchant(t);
    await topUp(owner, 5_000);
    await topUp(thief, 5_000);
    const q = await quote(owner, 'USD', 'EUR', 1_000);
    for (const id of [q.id, 'fxq_doesnotexist', 'x'.repeat(100)]) {
      const res = await convert(thief, id);
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('not_found');
    }
    expect(await wallets(owner)).toEqual([{ currency: 'USD', availableCents: 5_000, reservedCents: 0 }]);
    expect(await wallets(thief)).toEqual([{ currency: 'USD', availableCents: 5_000, reservedCents: 0 }]);
    // Still the owner's to use.
    expect((await convert(owner, q.id)).status).toBe(201);
  });

  it('too little in the source wallet is 402 naming its currency; nothing is stored against the key, so the same key works after a top-up', async () => {
    const m = await seedMerchant(t);
    await topUp(m, 1_000, 'EUR');
    const q = await quote(m, 'EUR', 'GBP', 1_000);
    expect(q.fromAmountCents).toBe(expectedFromAmount(1_000, published.EUR.GBP));
    const key = randomUUID();
    const refused = await convert(m, q.id, key);
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({ error: 'insufficient_funds', message: expect.stringContaining('EUR') });
    expect(await wallets(m)).toEqual([
      { currency: 'USD', availableCents: 0, reservedCents: 0 },
      { currency: 'EUR', availableCents: 1_000, reservedCents: 0 },
    ]);
    await topUp(m, 500, 'EUR');
    const retried = await convert(m, q.id, key);
    expect(retried.status).toBe(201);
    expect(await wallets(m)).toEqual([
      { currency: 'USD', availableCents: 0, reservedCents: 0 },
      { currency: 'EUR', availableCents: 1_500 - q.fromAmountCents, reservedCents: 0 },
      { currency: 'GBP', availableCents: 1_000, reservedCents: 0 },
    ]);
    await expectLedgerInvariants(dataSource, m.accountId);
  });

  it.each([
    [{ from: 'USD', to: 'USD', toAmountCents: 100 }, 'to'],
    [{ from: 'usd', to: 'EUR', toAmountCents: 100 }, 'from'],
    [{ from: 'USD', to: 'JPY', toAmountCents: 100 }, 'to'],
    [{ from: 'XXX', to: 'EUR', toAmountCents: 100 }, 'from'],
    [{ from: 'USD', to: 'EUR', toAmountCents: 0 }, 'toAmountCents'],
    [{ from: 'USD', to: 'EUR', toAmountCents: 100_000_001 }, 'toAmountCents'],
    [{ from: 'USD', to: 'EUR', toAmountCents: 10.5 }, 'toAmountCents'],
    [{ from: 'USD', to: 'EUR', toAmountCents: '100' }, 'toAmountCents'],
    [{ from: 'USD', to: 'EUR' }, 'toAmountCents'],
    [{ from: 'USD', to: 'EUR', toAmountCents: 100, rate: 2 }, 'rate'],
  ])('refuses the quote %j with 400 naming %s', async (body, field) => {
    const m = await seedMerchant(t);
    const res = await t.api.as(m.key).post('/v1/fx/quotes', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('bad_request');
    expect(res.body.issues.map((i: any) => i.path)).toContain(field);
  });

  it('refuses a conversion without a quote id, and a top-up or transactions filter in an unsupported currency', async () => {
    const m = await seedMerchant(t);
    expect((await t.api.as(m.key).post('/v1/fx/conversions', {})).status).toBe(400);
    expect((await t.api.as(m.key).post('/v1/fx/conversions', { quoteId: 12 })).status).toBe(400);
    const topup = await t.api.as(m.key).post('/v1/topups', { amountCents: 1_000, currency: 'JPY' });
    expect(topup.status).toBe(400);
    expect(topup.body.issues).toEqual([{ path: 'currency', message: expect.stringContaining('CAD, EUR, GBP, USD') }]);
    expect((await t.api.as(m.readKey).get('/v1/wallet/transactions?currency=JPY')).status).toBe(400);
    expect((await t.api.as(m.readKey).get('/v1/wallet/transactions?currency=eur')).status).toBe(400);
    expect(await wallets(m)).toEqual([{ currency: 'USD', availableCents: 0, reservedCents: 0 }]);
  });

  it('a primary currency the catalog does not offer is still the account’s own', async () => {
    const m = await seedMerchant(t, { currency: 'JPY' });
    expect((await t.api.as(m.key).post('/v1/topups', { amountCents: 1_000, currency: 'JPY' })).status).toBe(201);
    expect(await wallets(m)).toEqual([{ currency: 'JPY', availableCents: 1_000, reservedCents: 0 }]);
    // No rate source prices JPY here: a quote is 503, not a guess.
    const res = await t.api.as(m.key).post('/v1/fx/quotes', { from: 'JPY', to: 'USD', toAmountCents: 100 });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('60');
  });

  it('scopes: OAuth tokens may read rates and quote, never convert; a read key cannot convert, a write-only key cannot quote', async () => {
    const m = await seedMerchant(t);
    await topUp(m, 5_000);
    const app = await registerApp(t, ['wallet:read']);
    const tokens = await connect(t, app, m, 'wallet:read');
    const asApp = t.api.as(tokens.access_token);
    expect((await asApp.get('/v1/fx/rates')).status).toBe(200);
    const quoted = await asApp.post('/v1/fx/quotes', { from: 'USD', to: 'EUR', toAmountCents: 1_000 });
    expect(quoted.status).toBe(201);
    expect((await asApp.post('/v1/fx/conversions', { quoteId: quoted.body.quote.id })).status).toBe(403);
    expect((await t.api.as(m.readKey).post('/v1/fx/conversions', { quoteId: quoted.body.quote.id })).status).toBe(403);
    expect((await t.api.as(m.writeKey).post('/v1/fx/quotes', { from: 'USD', to: 'EUR', toAmountCents: 1_000 })).status).toBe(403);
    expect((await t.api.post('/v1/fx/quotes', { from: 'USD', to: 'EUR', toAmountCents: 1_000 })).status).toBe(401);
    expect(await wallets(m)).toEqual([{ currency: 'USD', availableCents: 5_000, reservedCents: 0 }]);
  });
});

/**
 * On a database of its own: the clock moves a day ahead and the stored rates with it, which no other
 * suite's app should see (every app stores the rates it refreshes into its database).
 */
describe('FX: stale rates', () => {
  const clock = new TestClock();
  let t: TestApp;
  let dataSource: DataSource;

  beforeAll(async () => {
    t = await startTestApp({ env: await isolatedDatabase(), overrides: [clockOverride(clock)] });
    dataSource = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  const quote = async (m: SeededMerchant, from: string, to: string, toAmountCents: number) => {
    const res = await t.api.as(m.key).post('/v1/fx/quotes', { from, to, toAmountCents });
    expect(res.status).toBe(201);
    return res.body.quote;
  };
  const convert = (m: SeededMerchant, quoteId: string, key?: string) =>
    t.api.as(m.key).post('/v1/fx/conversions', { quoteId }, key ? { headers: { 'Idempotency-Key': key } } : {});
  const wallets = async (m: SeededMerchant) => (await t.api.as(m.readKey).get('/v1/wallets')).body.wallets;
  const topUp = async (m: SeededMerchant, amountCents: number) => expect((await t.api.as(m.key).post('/v1/topups', { amountCents })).status).toBe(201);

  it('stale rates: a quote made in time but converted after the rates turned 24 h old is 503, wallets untouched, and /health/ready says so; a refresh resumes', async () => {
    const m = await seedMerchant(t);
    await topUp(m, 5_000);
    const health = async () => ((await (await fetch(`${t.baseUrl}/health/ready`)).json()) as { fx: { status: string; source: string } }).fx;
    expect(await health()).toMatchObject({ source: 'sandbox', status: 'fresh' });

    // The rates were stored when the app started; the clock moves to just before they turn 24 h old.
    const [{ as_of }] = await dataSource.query(`SELECT max(as_of) AS as_of FROM fx_rates WHERE source = 'sandbox'`);
    clock.freeze(new Date(new Date(as_of).getTime() + 24 * 3_600_000 - 30_000));
    const q = await quote(m, 'USD', 'EUR', 1_000);
    clock.advance(31_000);
    const refused = await convert(m, q.id, randomUUID());
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(refused.body).toEqual({ error: 'internal', message: expect.stringContaining('older than 24 hours') });
    const noQuote = await t.api.as(m.key).post('/v1/fx/quotes', { from: 'USD', to: 'EUR', toAmountCents: 1_000 });
    expect(noQuote.status).toBe(503);
    expect(await health()).toMatchObject({ source: 'sandbox', status: 'stale' });
    // Still listed, with how old they are.
    const listed = await t.api.as(m.readKey).get('/v1/fx/rates?from=USD');
    expect(listed.body.rates.every((r: any) => r.asOf === new Date(as_of).toISOString())).toBe(true);
    expect(await wallets(m)).toEqual([{ currency: 'USD', availableCents: 5_000, reservedCents: 0 }]);

    // The source answers again (as the worker's refresh does every 10 minutes).
    await t.app.get(FxRates).refresh();
    expect(await health()).toMatchObject({ status: 'fresh' });
    expect((await convert(m, (await quote(m, 'USD', 'EUR', 1_000)).id)).status).toBe(201);
  });
});

describe('FX_MARKUP_BPS', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startTestApp({ env: { FX_MARKUP_BPS: '150' } })));
  afterAll(() => t.close());

  it('is taken off the mid rate, rounded down, and the quote charges at the marked-down rate', async () => {
    const published = publishedSandboxRates();
    const m = await seedMerchant(t);
    const rates = (await t.api.as(m.readKey).get('/v1/fx/rates?from=USD')).body.rates;
    for (const r of rates) expect(r).toMatchObject({ midRate: Number(published.USD[r.to]), rate: marked(published.USD[r.to], 150) });
    const res = await t.api.as(m.key).post('/v1/fx/quotes', { from: 'USD', to: 'GBP', toAmountCents: 10_000 });
    expect(res.body.quote).toMatchObject({ rate: 0.77815, midRate: 0.79, fromAmountCents: 12_851 });
    expect(res.body.quote.fromAmountCents).toBe(expectedFromAmount(10_000, marked(published.USD.GBP, 150)));
  });
});
