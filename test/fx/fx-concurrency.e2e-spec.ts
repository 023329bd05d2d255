import { DataSource } from 'typeorm';
import { expectLedgerInvariants, expectLedgerInvariantsEverywhere } from '../support/ledger-invariants';
import { isolatedDatabase, SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

const CURRENCIES = ['USD', 'EUR', 'GBP'] as const;
type Currency = (typeof CURRENCIES)[number];
type Balances = Record<Currency, number>;

/** A seeded generator, so a failing run can be replayed: the seed is in the test name. */
function generator(seed: number) {
  let state = seed;
  const next = () => (state = (state * 48271) % 2_147_483_647) / 2_147_483_647;
  return { next, int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)), pick: <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] };
}

/**
 * Top-ups and conversions at once, across three currencies, over HTTP: whatever the interleaving,
 * each wallet ends at exactly what the accepted operations add up to, and every ledger invariant
 * holds for every wallet (docs/currencies.md, Ledger). On a database of its own, so "every wallet"
 * is this suite's.
 */
describe('concurrent top-ups and conversions across three currencies', () => {
  let t: TestApp;
  let dataSource: DataSource;
  const SEED = 20261127;

  beforeAll(async () => {
    t = await startTestApp({ env: { ...(await isolatedDatabase()), RATE_LIMIT_PER_MINUTE: '100000' } });
    dataSource = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  const wallets = async (m: SeededMerchant): Promise<Balances> => {
    const listed: { currency: Currency; availableCents: number; reservedCents: number }[] = (await t.api.as(m.readKey).get('/v1/wallets')).body.wallets;
    for (const w of listed) expect(w.reservedCents).toBe(0);
    return Object.fromEntries(CURRENCIES.map((c) => [c, listed.find((w) => w.currency === c)?.availableCents ?? 0])) as Balances;
  };

  it(`randomized (seed ${SEED}): balances are the sum of what was accepted, and the invariants hold`, async () => {
    const random = generator(SEED);
    const merchants = await Promise.all(Array.from({ length: 4 }, () => seedMerchant(t)));
    const expected = new Map<string, Balances>(merchants.map((m) => [m.accountId, { USD: 0, EUR: 0, GBP: 0 }]));
    const outcomes: Record<string, number> = {};
    const count = (what: string) => (outcomes[what] = (outcomes[what] ?? 0) + 1);

    const topUp = async (m: SeededMerchant, currency: Currency, amountCents: number) => {
      const res = await t.api.as(m.key).post('/v1/topups', { amountCents, currency });
      expect(res.status).toBe(201);
      expected.get(m.accountId)![currency] += amountCents;
      count('topup');
    };
    const convert = async (m: SeededMerchant, from: Currency, to: Currency, toAmountCents: number) => {
      const quoted = await t.api.as(m.key).post('/v1/fx/quotes', { from, to, toAmountCents });
      expect(quoted.status).toBe(201);
      const { id, fromAmountCents } = quoted.body.quote;
      const res = await t.api.as(m.key).post('/v1/fx/conversions', { quoteId: id });
      expect([201, 402]).toContain(res.status);
      if (res.status === 201) {
        expect(res.body.conversion).toMatchObject({ fromAmountCents, toAmountCents });
        expected.get(m.accountId)![from] -= fromAmountCents;
        expected.get(m.accountId)![to] += toAmountCents;
      } else expect(res.body.message).toContain(from);
      count(`convert ${res.status}`);
    };

    for (const m of merchants) await topUp(m, 'USD', 5_000);
    for (let wave = 0; wave < 5; wave++) {
      const operations = Array.from({ length: 40 }, () => {
        const m = random.pick(merchants);
        if (random.next() < 0.3) return () => topUp(m, random.pick(CURRENCIES), random.int(100, 3_000));
        const from = random.pick(CURRENCIES);
        const to = random.pick(CURRENCIES.filter((c) => c !== from));
        return () => convert(m, from, to, random.int(100, 2_500));
      });
      await Promise.all(operations.map((operation) => operation()));
    }

    // Both outcomes happened: funds ran out under contention, and conversions went through.
    expect(outcomes['convert 201']).toBeGreaterThan(20);
    expect(outcomes['convert 402']).toBeGreaterThan(5);
    for (const m of merchants) {
      expect(await wallets(m)).toEqual(expected.get(m.accountId));
      await expectLedgerInvariants(dataSource, m.accountId);
    }
    expect(await expectLedgerInvariantsEverywhere(dataSource)).toBeGreaterThanOrEqual(merchants.length * 2);
  }, 120_000);

  it('racing conversions from one wallet, with top-ups of the others going on: exactly the affordable ones succeed', async () => {
    const m = await seedMerchant(t);
    const quotes = [];
    // Funds for exactly 7 of 25 conversions of 1,000.00 GBP from EUR (each costing the same).
    for (let i = 0; i < 25; i++) quotes.push((await t.api.as(m.key).post('/v1/fx/quotes', { from: 'EUR', to: 'GBP', toAmountCents: 100_000 })).body.quote);
    const cost = quotes[0].fromAmountCents;
    expect(quotes.every((q) => q.fromAmountCents === cost)).toBe(true);
    expect((await t.api.as(m.key).post('/v1/topups', { amountCents: 7 * cost, currency: 'EUR' })).status).toBe(201);

    const results = await Promise.all([
      ...quotes.map((q) => t.api.as(m.key).post('/v1/fx/conversions', { quoteId: q.id })),
      ...Array.from({ length: 10 }, () => t.api.as(m.key).post('/v1/topups', { amountCents: 100, currency: 'USD' })),
    ]);
    const conversions = results.slice(0, quotes.length).map((r) => r.status);
    expect(conversions.filter((s) => s === 201)).toHaveLength(7);
    expect(conversions.filter((s) => s === 402)).toHaveLength(18);
    expect(await wallets(m)).toEqual({ USD: 1_000, EUR: 0, GBP: 700_000 });
    await expectLedgerInvariants(dataSource, m.accountId);
  }, 120_000);
});
