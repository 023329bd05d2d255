import { DataSource } from 'typeorm';
import { Clock, Sweepers } from '@app/core';
import { FxRates, FxRatesSourceError, TangoRatesSource } from '@app/fx';
import { e8, expectedFromAmount } from '../support/fx';
import { expectLedgerInvariantsEverywhere } from '../support/ledger-invariants';
import { TANGO_DOUBLE_CREDENTIALS, TangoDouble } from '../support/tango-double';
import { clockOverride, TestClock } from '../support/test-clock';
import { isolatedDatabase, SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp } from '../support/test-app';

const HOUR = 3_600_000;

/** a / b for rates held as integers of 10^-8, rounded half up: how a derived rate must come out. */
const divide = (a: bigint, b: bigint) => (2n * a * 100_000_000n + b) / (2n * b);
const asNumber = (rate: bigint) => Number(`${rate / 100_000_000n}.${(rate % 100_000_000n).toString().padStart(8, '0')}`);

/** The Tango exchange-rates adapter over real HTTP against the local double of Tango's wire format (docs/currencies.md). */
describe('Tango rates adapter', () => {
  let double: TangoDouble;
  let baseUrl: string;
  const clock = new TestClock();
  const source = (overrides: Partial<ConstructorParameters<typeof TangoRatesSource>[0]> = {}) =>
    new TangoRatesSource(
      {
        baseUrl,
        platformName: TANGO_DOUBLE_CREDENTIALS.TANGO_PLATFORM_NAME,
        platformKey: TANGO_DOUBLE_CREDENTIALS.TANGO_PLATFORM_KEY,
        customerIdentifier: TANGO_DOUBLE_CREDENTIALS.TANGO_CUSTOMER_IDENTIFIER,
        accountIdentifier: TANGO_DOUBLE_CREDENTIALS.TANGO_ACCOUNT_IDENTIFIER,
        // Generous, so a loaded machine never turns an answer into a timeout; the hang case sets its own.
        timeoutMs: 10_000,
        ...overrides,
      },
      clock as Clock,
    );
  const refusal = async (promise: Promise<unknown>): Promise<string> => {
    try {
      await promise;
    } catch (error) {
      expect(error).toBeInstanceOf(FxRatesSourceError);
      return (error as Error).message;
    }
    throw new Error('expected an FxRatesSourceError');
  };

  beforeEach(async () => {
    double = new TangoDouble();
    baseUrl = await double.start();
  });
  afterEach(() => double.stop());

  it('reads GET /raas/v2/exchangerates with Basic authentication: baseFx is units of rewardCurrency per baseCurrency', async () => {
    const rates = await source().fetch();
    expect(rates.map((r) => [r.from, r.to, r.midRate])).toEqual(double.exchangeRates.map((r) => [r.baseCurrency, r.rewardCurrency, e8(r.baseFx)]));
    const [request] = double.exchangeRateRequests();
    expect([request.method, request.path, request.authorization]).toEqual([
      'GET',
      '/raas/v2/exchangerates',
      `Basic ${Buffer.from('RewardsTestPlatform:double-platform-key-5f0c').toString('base64')}`,
    ]);
  });

  it('leaves out entries it cannot believe: malformed, or not updated by Tango for 48 hours', async () => {
    const now = new Date();
    const old = new Date(now.getTime() - 49 * HOUR).toISOString();
    double.exchangeRates = [
      { lastModifiedDate: now.toISOString(), baseCurrency: 'USD', rewardCurrency: 'EUR', baseFx: 0.9231 },
      { lastModifiedDate: now.toISOString(), baseCurrency: 'USD', rewardCurrency: 'eur', baseFx: 0.9 },
      { lastModifiedDate: now.toISOString(), baseCurrency: 'USD', rewardCurrency: 'GBP', baseFx: -0.79 },
      { lastModifiedDate: now.toISOString(), baseCurrency: 'USD', rewardCurrency: 'CAD', baseFx: 'a lot' as unknown as number },
      { lastModifiedDate: now.toISOString(), baseCurrency: 'USD', rewardCurrency: 'USD', baseFx: 1 },
      { lastModifiedDate: 'yesterday', baseCurrency: 'USD', rewardCurrency: 'AUD', baseFx: 1.5 },
      { lastModifiedDate: old, baseCurrency: 'USD', rewardCurrency: 'JPY', baseFx: 150.12 },
    ];
    const rates = await source().fetch();
    expect(rates.map((r) => [r.from, r.to])).toEqual([['USD', 'EUR']]);
  });

  it.each([
    ['not JSON', 'this is not json', /not JSON/],
    ['no exchangeRates list', '{"disclaimer": "x"}', /without an exchangeRates list/],
    ['exchangeRates not a list', '{"exchangeRates": "USD"}', /without an exchangeRates list/],
    ['an empty list', '{"exchangeRates": []}', /no usable exchange rate/],
    ['only unusable entries', '{"exchangeRates": [{"baseCurrency": "USD"}, null, 7]}', /no usable exchange rate/],
    ['a bare list', '[{"baseCurrency": "USD", "rewardCurrency": "EUR", "baseFx": 0.9}]', /without an exchangeRates list/],
  ])('refuses an answer that is %s', async (_what, body, message) => {
    double.exchangeRatesBody = body;
    expect(await refusal(source().fetch())).toMatch(message);
  });

  it('refuses when Tango is down, slow, or refuses our credentials', async () => {
    double.failNext(1, { kind: 'status', status: 503 }, 'GET /exchangerates');
    expect(await refusal(source().fetch())).toMatch(/HTTP 503/);
    double.failNext(1, { kind: 'hang' }, 'GET /exchangerates');
    expect(await refusal(source({ timeoutMs: 400 }).fetch())).toMatch(/did not answer .* within 400 ms/);
    expect(await refusal(source({ platformKey: 'wrong' }).fetch())).toMatch(/HTTP 401/);
    await double.stop();
    expect(await refusal(source().fetch())).toMatch(/could not be reached/);
  });
});

/**
 * FX_RATES=tango through the app, on a database of its own (the clock moves a day ahead, and the
 * rates stored are this double's).
 */
describe('FX_RATES=tango', () => {
  const clock = new TestClock();
  const double = new TangoDouble();
  let t: TestApp;
  let dataSource: DataSource;
  let m: SeededMerchant;

  beforeAll(async () => {
    const tangoUrl = await double.start();
    t = await startTestApp({
      env: { ...(await isolatedDatabase()), FX_RATES: 'tango', TANGO_BASE_URL: tangoUrl, ...TANGO_DOUBLE_CREDENTIALS },
      overrides: [clockOverride(clock)],
    });
    dataSource = t.app.get(DataSource);
    m = await seedMerchant(t);
    expect((await t.api.as(m.key).post('/v1/topups', { amountCents: 100_000 })).status).toBe(201);
  });
  afterAll(async () => {
    await expectLedgerInvariantsEverywhere(dataSource);
    await t.close();
    await double.stop();
  });

  const rates = async () =>
    Object.fromEntries(((await t.api.as(m.readKey).get('/v1/fx/rates')).body.rates as any[]).map((r) => [`${r.from}>${r.to}`, r]));
  const health = async () => ((await (await fetch(`${t.baseUrl}/health/ready`)).json()) as { fx: { source: string; status: string } }).fx;
  const published = (base: string, reward: string) => e8(double.exchangeRates.find((r) => r.baseCurrency === base && r.rewardCurrency === reward)!.baseFx);

  it('refreshes from Tango at start; pairs Tango does not publish are its inverse or cross rates', async () => {
    expect(double.exchangeRateRequests().length).toBeGreaterThanOrEqual(1);
    const listed = await rates();
    // The four sandbox catalog currencies, every pair.
    expect(Object.keys(listed)).toHaveLength(12);
    expect(listed['USD>GBP']).toMatchObject({ rate: 0.7912, midRate: 0.7912 });
    // Published both ways: Tango's own EUR rate, not the inverse of its USD one.
    expect(listed['EUR>USD'].rate).toBe(1.0833);
    expect(listed['GBP>USD'].rate).toBe(asNumber(divide(100_000_000n, published('USD', 'GBP'))));
    expect(listed['EUR>GBP'].rate).toBe(asNumber(divide(published('USD', 'GBP'), published('USD', 'EUR'))));
    expect(listed['CAD>EUR'].rate).toBe(asNumber(divide(published('USD', 'EUR'), published('USD', 'CAD'))));
    expect(await health()).toMatchObject({ source: 'tango', status: 'fresh' });
  });

  it('converts at a Tango rate', async () => {
    const q = (await t.api.as(m.key).post('/v1/fx/quotes', { from: 'USD', to: 'CAD', toAmountCents: 13_599 })).body.quote;
    expect(q).toMatchObject({ rate: 1.3599, fromAmountCents: expectedFromAmount(13_599, '1.3599') });
    expect(q.fromAmountCents).toBe(10_000);
    expect((await t.api.as(m.key).post('/v1/fx/conversions', { quoteId: q.id })).status).toBe(201);
  });

  it('a Tango that is down or answers garbage changes nothing; a day later the rates are stale and conversions 503; Tango back, they resume', async () => {
    const before = await rates();
    const refresh = () => t.app.get(FxRates).refreshLogged('test');
    double.failNext(1, { kind: 'status', status: 500 }, 'GET /exchangerates');
    await refresh();
    double.exchangeRatesBody = '{"exchangeRates": [{"baseCurrency": "USD", "rewardCurrency": "EUR", "baseFx": "lots"}]}';
    await refresh();
    expect(await rates()).toEqual(before);

    clock.freeze();
    clock.advance(24 * HOUR + 1_000);
    expect(await health()).toMatchObject({ source: 'tango', status: 'stale' });
    const refused = await t.api.as(m.key).post('/v1/fx/quotes', { from: 'USD', to: 'EUR', toAmountCents: 1_000 });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('60');
    const wallets = (await t.api.as(m.readKey).get('/v1/wallets')).body.wallets;

    double.exchangeRatesBody = undefined;
    double.exchangeRates = double.exchangeRates.map((r) => (r.rewardCurrency === 'EUR' ? { ...r, baseFx: 0.95, lastModifiedDate: clock.now().toISOString() } : r));
    await refresh();
    expect(await health()).toMatchObject({ status: 'fresh' });
    expect((await rates())['USD>EUR']).toMatchObject({ rate: 0.95, asOf: clock.now().toISOString() });
    expect((await t.api.as(m.readKey).get('/v1/wallets')).body.wallets).toEqual(wallets);
    const q = (await t.api.as(m.key).post('/v1/fx/quotes', { from: 'USD', to: 'EUR', toAmountCents: 950 })).body.quote;
    expect(q).toMatchObject({ rate: 0.95, fromAmountCents: 1_000 });
  });

  it('the worker side refreshes on its own: at start, and on its schedule', async () => {
    const asked = double.exchangeRateRequests().length;
    const worker = await startTestWorker(t);
    try {
      expect(double.exchangeRateRequests().length).toBe(asked + 1);
      expect(worker.app.get(Sweepers).names()).toContain('fx-rates-refresh');
    } finally {
      await worker.close();
    }
  });
});
