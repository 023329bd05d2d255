import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { RewardLifecycle } from '@app/rewards';
import { expectedFromAmount, publishedSandboxRates } from '../support/fx';
import { expectLedgerInvariants, expectLedgerInvariantsEverywhere } from '../support/ledger-invariants';
import { eventually } from '../support/processes';
import { RecipientClient, tokenOf } from '../support/redemption';
import { catalogPicks, CatalogPicks, choiceReward, countRows, fixedReward } from '../support/rewards';
import { clockOverride, TestClock } from '../support/test-clock';
import { isolatedDatabase, SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

type Wallets = Record<string, { availableCents: number; reservedCents: number }>;

interface CatalogItem {
  utid: string;
  brandKey: string;
  currencyCode: string;
  valueType: 'FIXED_VALUE' | 'VARIABLE_VALUE';
  faceValue: number | null;
  minValue: number | null;
}

/** A seeded generator, so a failing run can be replayed: the seed is in the test name. */
function generator(seed: number) {
  let state = seed;
  const next = () => (state = (state * 48271) % 2_147_483_647) / 2_147_483_647;
  return { next, int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)), pick: <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] };
}

/**
 * Rewards in any catalog currency over HTTP (docs/currencies.md, Rewards in another currency): held
 * in the reward currency's wallet, or converted from another one (`fundingCurrency`) in the send's
 * own statement, and whatever returns from a reward returns to its own currency's wallet. With the
 * worker side running (cards issued, events delivered to a receiver that checks them against the
 * contract), on a database of its own, with the sandbox rate table of docs/currencies.md.
 */
describe('rewards in any catalog currency', () => {
  const clock = new TestClock();
  const published = publishedSandboxRates();
  let t: TestApp;
  let worker: TestWorker;
  let receiver: WebhookReceiver;
  let dataSource: DataSource;
  let picks: CatalogPicks;
  let items: CatalogItem[];

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await startTestApp({
      env: { ...(await isolatedDatabase()), WEBHOOK_RETRY_BASE_MS: '50', RATE_LIMIT_PER_MINUTE: '100000' },
      overrides: [clockOverride(clock)],
    });
    worker = await startTestWorker(t);
    dataSource = t.app.get(DataSource);
    const first = await seedMerchant(t);
    picks = await catalogPicks(t, first.key);
    const catalog = (await t.api.as(first.key).get('/v1/catalog')).body.brands;
    items = catalog.flatMap((b: any) => b.items.map((i: any) => ({ ...i, brandKey: b.brandKey })));
  });
  afterAll(async () => {
    await expectLedgerInvariantsEverywhere(dataSource);
    await worker.close();
    await t.close();
    await receiver.close(); // fails the suite if a delivery broke the contract
  });
  afterEach(() => clock.reset());

  /** A fixed-value item in `currency` of a brand that issues, worth at most `maxCents`. */
  const fixedIn = (currency: string, maxCents = Infinity) => {
    const item = items.find((i) => i.currencyCode === currency && i.valueType === 'FIXED_VALUE' && i.brandKey !== 'test-failure' && i.faceValue! * 100 <= maxCents);
    if (!item) throw new Error(`the catalog has no fixed ${currency} item`);
    return { utid: item.utid, brandKey: item.brandKey, valueCents: Math.round(item.faceValue! * 100) };
  };
  const topUp = async (m: SeededMerchant, amountCents: number, currency?: string) => {
    const res = await t.api.as(m.key).post('/v1/topups', { amountCents, ...(currency ? { currency } : {}) });
    expect(res.status).toBe(201);
  };
  const wallets = async (m: SeededMerchant): Promise<Wallets> => {
    const listed = (await t.api.as(m.readKey).get('/v1/wallets')).body.wallets as { currency: string; availableCents: number; reservedCents: number }[];
    return Object.fromEntries(listed.map(({ currency, availableCents, reservedCents }) => [currency, { availableCents, reservedCents }]));
  };
  const send = (m: SeededMerchant, body: Record<string, unknown>, headers: Record<string, string> = {}) => t.api.as(m.key).post('/v1/rewards', body, { headers });
  const reward = async (m: SeededMerchant, id: string) => (await t.api.as(m.readKey).get(`/v1/rewards/${id}`)).body.reward;
  /** The ledger rows of one reward or card, in the order a send, then a settle, cancel or expiry write them. */
  const KINDS = ['CONVERSION_OUT', 'CONVERSION_IN', 'HOLD', 'CAPTURE', 'RELEASE'];
  const ledgerOf = async (m: SeededMerchant, relatedId: string) =>
    ((await t.api.as(m.readKey).get('/v1/wallet/transactions?page_size=100')).body.transactions as any[])
      .filter((x) => x.relatedId === relatedId)
      .sort((a, b) => KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind))
      .map((x) => [x.kind, x.currency, x.availableDeltaCents, x.reservedDeltaCents, x.relatedType]);
  const rewardsOf = (m: SeededMerchant) => countRows(dataSource, 'SELECT 1 FROM rewards WHERE account_id = $1', [m.accountId]);

  it('a US merchant tops up EUR, converts USD to GBP at a quote, sends a GBP card from GBP and a EUR CHOICE from USD, cancels it and sees the EUR back in EUR', async () => {
    const m = await seedMerchant(t);
    const hook = await t.api.as(m.key).post('/v1/webhook-endpoints', {
      url: receiver.url(`/rewards-${m.accountId}`),
      events: ['reward.created', 'reward.canceled', 'reward.redeemed'],
    });
    expect(hook.status).toBe(201);
    await topUp(m, 100_000);
    await topUp(m, 20_000, 'EUR');

    // USD -> GBP at a quote.
    const quote = (await t.api.as(m.key).post('/v1/fx/quotes', { from: 'USD', to: 'GBP', toAmountCents: 10_000 })).body.quote;
    expect(quote.fromAmountCents).toBe(expectedFromAmount(10_000, published.USD.GBP));
    expect((await t.api.as(m.key).post('/v1/fx/conversions', { quoteId: quote.id })).status).toBe(201);
    const usdAfterQuote = 100_000 - quote.fromAmountCents;
    expect(await wallets(m)).toEqual({
      USD: { availableCents: usdAfterQuote, reservedCents: 0 },
      EUR: { availableCents: 20_000, reservedCents: 0 },
      GBP: { availableCents: 10_000, reservedCents: 0 },
    });

    // A GBP card, held in the GBP wallet: a FIXED reward is in its item's currency.
    const gbpItem = fixedIn('GBP', 10_000);
    const card = await send(m, fixedReward(gbpItem));
    expect(card.status).toBe(201);
    expect(card.body.reward).toMatchObject({ type: 'FIXED', currency: 'GBP', fx: null, faceValueCents: gbpItem.valueCents });
    expect(card.body.reward.issuedCards[0]).toMatchObject({ currency: 'GBP', amountCents: gbpItem.valueCents, status: 'PENDING' });

    // A EUR CHOICE reward funded from USD: converted at the sandbox rate, held in EUR; the EUR already there is not used.
    const fundedCents = expectedFromAmount(5_000, published.USD.EUR);
    expect(fundedCents).toBe(5_435); // ceil(5000 / 0.92), the example of docs/currencies.md
    const choice = await send(m, choiceReward(5_000, { currency: 'EUR', fundingCurrency: 'USD' }));
    expect(choice.status).toBe(201);
    const fx = { fundingCurrency: 'USD', rate: Number(published.USD.EUR), fundedCents };
    expect(choice.body.reward).toMatchObject({ type: 'CHOICE', currency: 'EUR', faceValueCents: 5_000, remainingValueCents: 5_000, fx });
    const rewardId = choice.body.reward.id;
    expect(await ledgerOf(m, rewardId)).toEqual([
      ['CONVERSION_OUT', 'USD', -fundedCents, 0, 'reward'],
      ['CONVERSION_IN', 'EUR', 5_000, 0, 'reward'],
      ['HOLD', 'EUR', -5_000, 5_000, 'reward'],
    ]);
    const card0 = await eventually(async () => {
      const r = await reward(m, card.body.reward.id);
      return r.status === 'REDEEMED' ? r : undefined;
    }, 30_000);
    expect(card0.issuedCards[0]).toMatchObject({ status: 'ISSUED', currency: 'GBP' });
    expect(await wallets(m)).toEqual({
      USD: { availableCents: usdAfterQuote - fundedCents, reservedCents: 0 },
      EUR: { availableCents: 20_000, reservedCents: 5_000 },
      GBP: { availableCents: 10_000 - gbpItem.valueCents, reservedCents: 0 },
    });
    // The reward shows how it was funded, in its detail and in the list.
    expect((await reward(m, rewardId)).fx).toEqual(fx);
    const listed = (await t.api.as(m.readKey).get('/v1/rewards')).body.rewards;
    expect(listed.map((r: any) => [r.id, r.currency, r.fx])).toEqual([
      [rewardId, 'EUR', fx],
      [card.body.reward.id, 'GBP', null],
    ]);

    // The recipient is offered cards in EUR only.
    const recipient = new RecipientClient(t);
    const offered = (await recipient.state(tokenOf(choice.body.redemptionUrl))).body;
    expect(offered.reward).toMatchObject({ currency: 'EUR' });
    const offeredUtids = offered.brands.flatMap((b: any) => b.items.map((i: any) => i.utid));
    expect(offeredUtids).toContain(picks.fixedEur.utid);
    expect(offeredUtids).not.toContain(picks.fixedUsd.utid);

    // Cancel: the EUR comes back to EUR, never converted back to USD.
    const canceled = await t.api.as(m.key).post(`/v1/rewards/${rewardId}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.reward).toMatchObject({ status: 'CANCELED', remainingValueCents: 0, currency: 'EUR', fx });
    expect(await wallets(m)).toEqual({
      USD: { availableCents: usdAfterQuote - fundedCents, reservedCents: 0 },
      EUR: { availableCents: 25_000, reservedCents: 0 },
      GBP: { availableCents: 10_000 - gbpItem.valueCents, reservedCents: 0 },
    });
    expect((await ledgerOf(m, rewardId)).at(-1)).toEqual(['RELEASE', 'EUR', 5_000, -5_000, 'reward']);

    // The overview counts the GBP card in GBP.
    const overview = (await t.api.as(m.readKey).get('/v1/account/overview')).body;
    expect(overview.statsByCurrency).toEqual([
      { currency: 'USD', totalIssuedCents: 0, activeValueCents: 0 },
      { currency: 'EUR', totalIssuedCents: 0, activeValueCents: 0 },
      { currency: 'GBP', totalIssuedCents: gbpItem.valueCents, activeValueCents: 0 },
    ]);

    // Webhooks carry the reward's currency and fx, as the reward does (and as the contract says: the receiver checks).
    const delivered = await eventually(async () => {
      const got = receiver.at(`/rewards-${m.accountId}`).map((r) => r.json);
      return got.length >= 4 ? got : undefined;
    }, 30_000);
    const ofEur = delivered.filter((e) => e.data.id === rewardId);
    expect(ofEur.map((e) => e.type).sort()).toEqual(['reward.canceled', 'reward.created']);
    for (const event of ofEur) expect(event.data).toMatchObject({ currency: 'EUR', fx, valueCents: 5_000 });
    expect(delivered.find((e) => e.type === 'reward.redeemed').data).toMatchObject({ id: card.body.reward.id, currency: 'GBP', fx: null });
    expect(receiver.violations).toEqual([]);
    await expectLedgerInvariants(dataSource, m.accountId);
  }, 90_000);

  it('a EUR CHOICE reward held from EUR: its picks are EUR cards, captured from the EUR wallet', async () => {
    const m = await seedMerchant(t);
    await topUp(m, 10_000, 'EUR');
    const sent = await send(m, choiceReward(picks.fixedEur.valueCents + 1_000, { currency: 'EUR' }));
    expect(sent.status).toBe(201);
    expect(sent.body.reward).toMatchObject({ currency: 'EUR', fx: null });
    const picked = await new RecipientClient(t).pick(tokenOf(sent.body.redemptionUrl), { utid: picks.fixedEur.utid, amountCents: picks.fixedEur.valueCents });
    expect(picked.status).toBe(201);
    expect(picked.body.card).toMatchObject({ currency: 'EUR', amountCents: picks.fixedEur.valueCents });
    await eventually(async () => (await reward(m, sent.body.reward.id)).issuedCards[0]?.status === 'ISSUED' || undefined, 30_000);
    expect(await wallets(m)).toEqual({
      USD: { availableCents: 0, reservedCents: 0 },
      EUR: { availableCents: 10_000 - picks.fixedEur.valueCents - 1_000, reservedCents: 1_000 },
    });
  }, 60_000);

  it('expiry returns the value to the wallet of the reward’s currency, whichever wallet funded it', async () => {
    const m = await seedMerchant(t);
    await topUp(m, 20_000);
    await topUp(m, 3_000, 'GBP');
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    const funded = await send(m, choiceReward(4_000, { currency: 'EUR', fundingCurrency: 'USD', expiresAt }));
    const own = await send(m, choiceReward(2_000, { currency: 'GBP', expiresAt }));
    const later = await send(m, choiceReward(1_000, { currency: 'GBP', fundingCurrency: 'USD', expiresAt: new Date(Date.now() + 3_600_000).toISOString() }));
    expect([funded.status, own.status, later.status]).toEqual([201, 201, 201]);
    const usdLeft = 20_000 - expectedFromAmount(4_000, published.USD.EUR) - expectedFromAmount(1_000, published.USD.GBP);

    clock.advance(120_000);
    // A reward another transaction holds at that moment (the worker's own expiry sweep) is skipped (SKIP LOCKED) and
    // expired by whoever holds it or by the next run: sweep until both are.
    await eventually(async () => {
      await t.app.get(RewardLifecycle).expireDue();
      const statuses = [(await reward(m, funded.body.reward.id)).status, (await reward(m, own.body.reward.id)).status];
      return statuses.every((status) => status === 'EXPIRED') || undefined;
    }, 10_000);
    expect((await reward(m, later.body.reward.id)).status).toBe('SENT');
    expect(await wallets(m)).toEqual({
      USD: { availableCents: usdLeft, reservedCents: 0 },
      EUR: { availableCents: 4_000, reservedCents: 0 },
      GBP: { availableCents: 3_000, reservedCents: 1_000 },
    });
    expect((await ledgerOf(m, funded.body.reward.id)).at(-1)).toEqual(['RELEASE', 'EUR', 4_000, -4_000, 'reward']);
    await expectLedgerInvariants(dataSource, m.accountId);
  });

  it('a failed card returns its value to the reward’s currency: a USD card funded from EUR goes back to USD, not EUR', async () => {
    // A EUR-primary merchant: test-failure items are in USD (docs/catalog.md), a wallet it has to be funded into.
    const m = await seedMerchant(t, { currency: 'EUR' });
    await topUp(m, 50_000);
    const fixed = await send(m, fixedReward(picks.failingFixed, { fundingCurrency: 'EUR' }));
    expect(fixed.status).toBe(201);
    const fixedFunded = expectedFromAmount(picks.failingFixed.valueCents, published.EUR.USD);
    expect(fixed.body.reward).toMatchObject({ currency: 'USD', fx: { fundingCurrency: 'EUR', rate: Number(published.EUR.USD), fundedCents: fixedFunded } });
    const failed = await eventually(async () => {
      const r = await reward(m, fixed.body.reward.id);
      return r.status === 'CANCELED' ? r : undefined;
    }, 30_000);
    expect(failed.issuedCards[0]).toMatchObject({ status: 'FAILED', currency: 'USD' });

    // A USD CHOICE reward funded from EUR: the failed pick's value goes back to the reward, then a cancel to USD.
    const value = picks.failingVariable.valueCents + 500;
    const choice = await send(m, choiceReward(value, { currency: 'USD', fundingCurrency: 'EUR' }));
    expect(choice.status).toBe(201);
    const choiceFunded = expectedFromAmount(value, published.EUR.USD);
    const picked = await new RecipientClient(t).pick(tokenOf(choice.body.redemptionUrl), {
      utid: picks.failingVariable.utid,
      amountCents: picks.failingVariable.valueCents,
    });
    expect(picked.status).toBe(201);
    await eventually(async () => (await reward(m, choice.body.reward.id)).issuedCards[0]?.status === 'FAILED' || undefined, 30_000);
    expect((await reward(m, choice.body.reward.id)).remainingValueCents).toBe(value);
    expect((await t.api.as(m.key).post(`/v1/rewards/${choice.body.reward.id}/cancel`)).status).toBe(200);

    expect(await wallets(m)).toEqual({
      EUR: { availableCents: 50_000 - fixedFunded - choiceFunded, reservedCents: 0 },
      USD: { availableCents: picks.failingFixed.valueCents + value, reservedCents: 0 },
    });
    expect((await ledgerOf(m, failed.issuedCards[0].id))).toEqual([['RELEASE', 'USD', picks.failingFixed.valueCents, -picks.failingFixed.valueCents, 'card']]);
    await expectLedgerInvariants(dataSource, m.accountId);
  }, 60_000);

  it('refuses bad currencies and short wallets in the documented shape, moving nothing and storing nothing', async () => {
    const m = await seedMerchant(t);
    await topUp(m, 10_000);
    await topUp(m, 3_000, 'EUR');
    const before = await wallets(m);
    const gbpItem = fixedIn('GBP');
    const cases: [string, Record<string, unknown>, number, string | RegExp][] = [
      ['fundingCurrency equal to a CHOICE reward’s currency', choiceReward(2_000, { currency: 'EUR', fundingCurrency: 'EUR' }), 400, 'fundingCurrency'],
      ['fundingCurrency equal to the primary currency of a CHOICE reward without one', choiceReward(2_000, { fundingCurrency: 'USD' }), 400, 'fundingCurrency'],
      ['fundingCurrency equal to a FIXED item’s currency', fixedReward(gbpItem, { fundingCurrency: 'GBP' }), 400, 'fundingCurrency'],
      ['an unsupported currency', choiceReward(2_000, { currency: 'XYZ' }), 400, 'currency'],
      ['an unsupported fundingCurrency', choiceReward(2_000, { currency: 'EUR', fundingCurrency: 'JPY' }), 400, 'fundingCurrency'],
      ['a lower-case currency', choiceReward(2_000, { currency: 'eur' }), 400, 'currency'],
      ['a lower-case fundingCurrency', choiceReward(2_000, { currency: 'EUR', fundingCurrency: 'usd' }), 400, 'fundingCurrency'],
      ['a currency that is not a string', choiceReward(2_000, { currency: 978 }), 400, 'currency'],
      ['a FIXED item said to be in another currency', fixedReward(gbpItem, { currency: 'EUR' }), 422, /is in GBP/],
      ['a CHOICE reward in a currency the account holds no wallet in', choiceReward(2_000, { currency: 'CAD' }), 402, 'CAD'],
      ['a FIXED card in a currency the account holds no wallet in', fixedReward(gbpItem), 402, 'GBP'],
      ['funding from a currency the account holds no wallet in', choiceReward(2_000, { currency: 'EUR', fundingCurrency: 'GBP' }), 402, 'GBP'],
      ['more than the reward currency’s wallet holds', choiceReward(3_001, { currency: 'EUR' }), 402, 'EUR'],
      ['more than the funding wallet holds once converted', choiceReward(9_300, { currency: 'EUR', fundingCurrency: 'USD' }), 402, 'USD'],
    ];
    for (const [what, body, status, names] of cases) {
      const res = await send(m, body, { 'Idempotency-Key': randomUUID() });
      expect({ what, status: res.status }).toEqual({ what, status });
      if (status === 400) expect({ what, paths: [...new Set(res.body.issues.map((i: any) => i.path))] }).toEqual({ what, paths: [names] });
      else if (status === 402) {
        expect({ what, error: res.body.error, message: res.body.message }).toEqual({ what, error: 'insufficient_funds', message: expect.stringContaining(`The ${names} wallet`) });
      } else expect({ what, error: res.body.error, message: res.body.message }).toEqual({ what, error: 'validation', message: expect.stringMatching(names) });
    }
    // 9,300 EUR costs ceil(9300 / 0.92) = 10,109 USD, more than the 10,000 there; 9,200 costs exactly 10,000.
    expect(expectedFromAmount(9_200, published.USD.EUR)).toBe(10_000);
    expect(await wallets(m)).toEqual(before);
    expect(await rewardsOf(m)).toBe(0);
    expect(await countRows(dataSource, 'SELECT 1 FROM idempotency_keys WHERE scope = $1', [m.accountId])).toBe(0);

    // Exactly affordable once converted: the whole USD wallet, nothing left.
    const exact = await send(m, choiceReward(9_200, { currency: 'EUR', fundingCurrency: 'USD' }));
    expect(exact.status).toBe(201);
    expect(await wallets(m)).toEqual({ USD: { availableCents: 0, reservedCents: 0 }, EUR: { availableCents: 3_000, reservedCents: 9_200 } });
    await expectLedgerInvariants(dataSource, m.accountId);
  });

  it('a dry run answers the reward as it would be created, with fx, and moves, stores and consumes nothing', async () => {
    const m = await seedMerchant(t);
    await topUp(m, 10_000);
    const key = randomUUID();
    const body = choiceReward(2_500, { currency: 'GBP', fundingCurrency: 'USD', externalId: 'dry-1' });
    const dry = await t.api.as(m.key).post('/v1/rewards?dry_run=true', body, { headers: { 'Idempotency-Key': key } });
    expect(dry.status).toBe(200);
    const fx = { fundingCurrency: 'USD', rate: Number(published.USD.GBP), fundedCents: expectedFromAmount(2_500, published.USD.GBP) };
    expect(dry.body).toEqual({
      reward: expect.objectContaining({ type: 'CHOICE', status: 'SENT', currency: 'GBP', faceValueCents: 2_500, remainingValueCents: 2_500, externalId: 'dry-1', fx }),
    });
    expect(dry.body.reward.id).toBeUndefined();
    expect(await wallets(m)).toEqual({ USD: { availableCents: 10_000, reservedCents: 0 } });
    expect(await rewardsOf(m)).toBe(0);

    // A FIXED card in a currency with no wallet: the dry run says what the send would (402 naming it), and with fx it goes through.
    const eurCard = fixedReward(picks.fixedEur);
    const refused = await t.api.as(m.key).post('/v1/rewards?dry_run=true', eurCard);
    expect({ status: refused.status, message: refused.body.message }).toEqual({ status: 402, message: expect.stringContaining('The EUR wallet') });
    const withFx = await t.api.as(m.key).post('/v1/rewards?dry_run=true', { ...eurCard, fundingCurrency: 'USD' });
    expect(withFx.status).toBe(200);
    expect(withFx.body.reward).toMatchObject({ currency: 'EUR', fx: { fundingCurrency: 'USD', fundedCents: expectedFromAmount(picks.fixedEur.valueCents, published.USD.EUR) } });
    expect(withFx.body.reward.issuedCards.map((c: any) => [c.id, c.currency, c.status])).toEqual([[undefined, 'EUR', 'PENDING']]);
    const short = await t.api.as(m.key).post('/v1/rewards?dry_run=true', choiceReward(9_500, { currency: 'EUR', fundingCurrency: 'USD' }));
    expect({ status: short.status, message: short.body.message }).toEqual({ status: 402, message: expect.stringContaining('The USD wallet') });

    // The key was not consumed: the real send with it creates the reward, converted at the same rate.
    const real = await send(m, body, { 'Idempotency-Key': key });
    expect(real.status).toBe(201);
    expect(real.body.reward.fx).toEqual(fx);
    expect(await wallets(m)).toEqual({ USD: { availableCents: 10_000 - fx.fundedCents, reservedCents: 0 }, GBP: { availableCents: 0, reservedCents: 2_500 } });
  });

  it('bulk: items in several currencies, some funded from another wallet; the first one its wallet cannot afford stops the run', async () => {
    const m = await seedMerchant(t);
    await topUp(m, 20_000);
    await topUp(m, 3_000, 'EUR');
    const gbpItem = fixedIn('GBP', 5_000);
    const gbpFunded = expectedFromAmount(gbpItem.valueCents, published.USD.GBP);
    const eurFunded = expectedFromAmount(4_000, published.USD.EUR);
    const res = await t.api.as(m.key).post('/v1/rewards/bulk', {
      rewards: [
        choiceReward(1_000), // USD from USD
        choiceReward(2_500, { currency: 'EUR' }), // EUR from EUR
        fixedReward(gbpItem, { fundingCurrency: 'USD' }), // GBP card converted from USD
        choiceReward(4_000, { currency: 'EUR', fundingCurrency: 'USD' }), // EUR converted from USD; the EUR left is not used
        choiceReward(1_500, { currency: 'eur' }), // invalid: fails alone
        choiceReward(1_000, { currency: 'EUR' }), // only 500 EUR left: the run stops here
        choiceReward(100), // affordable, but after the stop
      ],
    });
    expect(res.status).toBe(207);
    expect(res.body.results.map((r: any) => r.error?.split(':')[0] ?? 'ok')).toEqual(['ok', 'ok', 'ok', 'ok', 'bad_request', 'skipped', 'skipped']);
    const ids = res.body.results.slice(0, 4).map((r: any) => r.rewardId);
    const sent = await Promise.all(ids.map((id: string) => reward(m, id)));
    expect(sent.map((r) => [r.currency, r.fx?.fundingCurrency ?? null, r.fx?.fundedCents ?? null, r.source])).toEqual([
      ['USD', null, null, 'bulk'],
      ['EUR', null, null, 'bulk'],
      ['GBP', 'USD', gbpFunded, 'bulk'],
      ['EUR', 'USD', eurFunded, 'bulk'],
    ]);
    const now = await wallets(m);
    expect(now.USD).toEqual({ availableCents: 20_000 - 1_000 - gbpFunded - eurFunded, reservedCents: 1_000 });
    expect(now.EUR).toEqual({ availableCents: 500, reservedCents: 6_500 });
    expect(now.GBP.availableCents).toBe(0); // the GBP card's hold, or its capture once issued
    expect(await ledgerOf(m, ids[3])).toEqual([
      ['CONVERSION_OUT', 'USD', -eurFunded, 0, 'reward'],
      ['CONVERSION_IN', 'EUR', 4_000, 0, 'reward'],
      ['HOLD', 'EUR', -4_000, 4_000, 'reward'],
    ]);

    // A dry run walks the same wallets without moving them.
    await topUp(m, 1_500, 'EUR');
    const dry = await t.api.as(m.key).post('/v1/rewards/bulk?dry_run=true', {
      rewards: [choiceReward(1_500, { currency: 'EUR' }), choiceReward(1_000, { currency: 'EUR' }), choiceReward(1_000, { currency: 'GBP', fundingCurrency: 'EUR' })],
    });
    expect(dry.body.results.map((r: any) => r.error ?? 'ok')).toEqual(['ok', 'skipped: insufficient_funds', 'skipped: insufficient_funds']);
    expect((await wallets(m)).EUR).toEqual({ availableCents: 2_000, reservedCents: 6_500 });
    await expectLedgerInvariants(dataSource, m.accountId);
  });

  it('racing sends from two wallets at once, funded and not: exactly the affordable ones succeed', async () => {
    const m = await seedMerchant(t);
    const cost = expectedFromAmount(5_000, published.USD.EUR); // each funded send: 50.00 EUR from USD
    await topUp(m, 7 * cost);
    await topUp(m, 4 * 5_000, 'EUR');
    const results = await Promise.all([
      ...Array.from({ length: 15 }, () => send(m, choiceReward(5_000, { currency: 'EUR', fundingCurrency: 'USD' }))),
      ...Array.from({ length: 10 }, () => send(m, choiceReward(5_000, { currency: 'EUR' }))),
      ...Array.from({ length: 5 }, () => t.api.as(m.key).post('/v1/topups', { amountCents: 100, currency: 'GBP' })),
    ]);
    const funded = results.slice(0, 15);
    const held = results.slice(15, 25);
    expect(funded.filter((r) => r.status === 201)).toHaveLength(7);
    expect(funded.filter((r) => r.status === 402).every((r) => r.body.message.includes('The USD wallet'))).toBe(true);
    expect(funded.filter((r) => r.status === 402)).toHaveLength(8);
    expect(held.filter((r) => r.status === 201)).toHaveLength(4);
    expect(held.filter((r) => r.status === 402).every((r) => r.body.message.includes('The EUR wallet'))).toBe(true);
    expect(held.filter((r) => r.status === 402)).toHaveLength(6);
    expect(await wallets(m)).toEqual({
      USD: { availableCents: 0, reservedCents: 0 },
      EUR: { availableCents: 0, reservedCents: 11 * 5_000 },
      GBP: { availableCents: 500, reservedCents: 0 },
    });
    expect(await rewardsOf(m)).toBe(11);
    await expectLedgerInvariants(dataSource, m.accountId);
  }, 60_000);

  const SEED = 20261128;
  it(`randomized (seed ${SEED}): top-ups, conversions, sends with and without fundingCurrency, cancels and expiries across three currencies`, async () => {
    const CURRENCIES = ['USD', 'EUR', 'GBP'] as const;
    type Currency = (typeof CURRENCIES)[number];
    const random = generator(SEED);
    const merchants = await Promise.all(Array.from({ length: 3 }, () => seedMerchant(t)));
    /** What each wallet's available balance must be from the accepted operations (reserved is derived from the rewards at the end). */
    const available = new Map(merchants.map((m) => [m.accountId, { USD: 0, EUR: 0, GBP: 0 } as Record<Currency, number>]));
    const sent = new Map<string, { m: SeededMerchant; currency: Currency; valueCents: number }>();
    const outcomes: Record<string, number> = {};
    const count = (what: string) => (outcomes[what] = (outcomes[what] ?? 0) + 1);
    const lifecycle = t.app.get(RewardLifecycle);

    const topUpOp = async (m: SeededMerchant, currency: Currency, amountCents: number) => {
      const res = await t.api.as(m.key).post('/v1/topups', { amountCents, currency });
      expect(res.status).toBe(201);
      available.get(m.accountId)![currency] += amountCents;
      count('topup');
    };
    const convertOp = async (m: SeededMerchant, from: Currency, to: Currency, toAmountCents: number) => {
      const { quote } = (await t.api.as(m.key).post('/v1/fx/quotes', { from, to, toAmountCents })).body;
      const res = await t.api.as(m.key).post('/v1/fx/conversions', { quoteId: quote.id });
      expect([201, 402]).toContain(res.status);
      if (res.status === 201) {
        available.get(m.accountId)![from] -= quote.fromAmountCents;
        available.get(m.accountId)![to] += toAmountCents;
      } else expect(res.body.message).toContain(`The ${from} wallet`);
      count(`convert ${res.status}`);
    };
    const sendOp = async (m: SeededMerchant, currency: Currency, funding: Currency | null, valueCents: number, expires: boolean) => {
      const body = choiceReward(valueCents, {
        currency,
        ...(funding ? { fundingCurrency: funding } : {}),
        // A minute ahead of the service's clock (which the waves move on), so it is due after this wave.
        ...(expires ? { expiresAt: new Date(clock.now().getTime() + 60_000).toISOString() } : {}),
      });
      const res = await send(m, body);
      expect([201, 402]).toContain(res.status);
      const paying = funding ?? currency;
      if (res.status === 201) {
        const cost = funding ? expectedFromAmount(valueCents, published[funding][currency]) : valueCents;
        if (funding) expect(res.body.reward.fx).toEqual({ fundingCurrency: funding, rate: Number(published[funding][currency]), fundedCents: cost });
        available.get(m.accountId)![paying] -= cost;
        sent.set(res.body.reward.id, { m, currency, valueCents });
      } else expect(res.body.message).toContain(`The ${paying} wallet`);
      count(`send${funding ? ' funded' : ''} ${res.status}`);
    };
    const cancelOp = async () => {
      const open = [...sent.entries()];
      if (open.length === 0) return;
      const [id, { m }] = random.pick(open);
      const res = await t.api.as(m.key).post(`/v1/rewards/${id}/cancel`);
      // Already cancelled or expired (by another operation of this wave, or a sweep): 422, nothing returned twice.
      expect([200, 422]).toContain(res.status);
      count(`cancel ${res.status}`);
    };
    const expireOp = async () => {
      await lifecycle.expireDue();
      count('expiry sweep');
    };

    for (const m of merchants) await topUpOp(m, 'USD', 20_000);
    for (let wave = 0; wave < 6; wave++) {
      const operations = Array.from({ length: 40 }, () => {
        const m = random.pick(merchants);
        const roll = random.next();
        if (roll < 0.2) return () => topUpOp(m, random.pick(CURRENCIES), random.int(500, 5_000));
        if (roll < 0.35) {
          const from = random.pick(CURRENCIES);
          return () => convertOp(m, from, random.pick(CURRENCIES.filter((c) => c !== from)), random.int(200, 4_000));
        }
        if (roll < 0.8) {
          const currency = random.pick(CURRENCIES);
          const funding = random.next() < 0.5 ? random.pick(CURRENCIES.filter((c) => c !== currency)) : null;
          // From 10.00: every currency has cards a recipient could pick at that value.
          return () => sendOp(m, currency, funding, random.int(1_000, 6_000), random.next() < 0.4);
        }
        if (roll < 0.95) return cancelOp;
        return expireOp;
      });
      await Promise.all(operations.map((operation) => operation()));
      // The rewards sent to expire in this wave are due on the service's clock from now on; the next
      // wave's sweeps (and cancels) race to return them. Quotes are made and converted within a wave.
      clock.advance(5 * 60_000);
    }
    // Every reward due by now is expired before the wallets are read. A reward the worker's own sweep holds at
    // that moment is skipped (SKIP LOCKED) and expired by that sweep's commit, which could land between the
    // reads of the rewards and of the wallets below: sweep until none is due.
    await eventually(async () => {
      await lifecycle.expireDue();
      const [{ due }] = await dataSource.query(
        `SELECT count(*)::int AS due FROM rewards
          WHERE account_id = ANY($1::text[]) AND expires_at <= $2 AND remaining_value_cents > 0
            AND status IN ('CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED')`,
        [merchants.map((m) => m.accountId), clock.now()],
      );
      return due === 0 || undefined;
    }, 10_000);

    // Both outcomes happened for every kind of operation that can be refused.
    for (const what of ['send 201', 'send 402', 'send funded 201', 'send funded 402', 'convert 201', 'cancel 200', 'expiry sweep']) {
      expect({ what, happened: (outcomes[what] ?? 0) > 0 }).toEqual({ what, happened: true });
    }
    // Whatever ended (cancelled or expired) returned its whole value to its own currency's wallet, once.
    const reserved = new Map(merchants.map((m) => [m.accountId, { USD: 0, EUR: 0, GBP: 0 } as Record<Currency, number>]));
    let ended = 0;
    for (const [id, { m, currency, valueCents }] of sent) {
      const r = await reward(m, id);
      expect(r.currency).toBe(currency);
      if (r.status === 'CANCELED' || r.status === 'EXPIRED') {
        available.get(m.accountId)![currency] += valueCents;
        ended += 1;
      } else reserved.get(m.accountId)![currency] += valueCents;
    }
    expect(ended).toBeGreaterThan(5);
    for (const m of merchants) {
      const now = await wallets(m);
      for (const currency of CURRENCIES) {
        expect({ merchant: m.accountId, currency, ...(now[currency] ?? { availableCents: 0, reservedCents: 0 }) }).toEqual({
          merchant: m.accountId,
          currency,
          availableCents: available.get(m.accountId)![currency],
          reservedCents: reserved.get(m.accountId)![currency],
        });
      }
      await expectLedgerInvariants(dataSource, m.accountId);
    }
    expect(await expectLedgerInvariantsEverywhere(dataSource)).toBeGreaterThanOrEqual(merchants.length * 3);
  }, 180_000);
});

/**
 * On a database of its own: the clock moves a day ahead of the stored rates, which no other suite's
 * app should see.
 */
describe('rewards funded from another wallet while the rates are stale', () => {
  const clock = new TestClock();
  let t: TestApp;
  let dataSource: DataSource;

  beforeAll(async () => {
    t = await startTestApp({ env: await isolatedDatabase(), overrides: [clockOverride(clock)] });
    dataSource = t.app.get(DataSource);
  });
  afterAll(async () => {
    await expectLedgerInvariantsEverywhere(dataSource);
    await t.close();
  });

  it('a send with fundingCurrency is 503 with Retry-After, wallets untouched; sends held in their own currency go on; a retry of a funded send replays', async () => {
    const m = await seedMerchant(t);
    expect((await t.api.as(m.key).post('/v1/topups', { amountCents: 10_000 })).status).toBe(201);
    expect((await t.api.as(m.key).post('/v1/topups', { amountCents: 10_000, currency: 'EUR' })).status).toBe(201);
    const key = randomUUID();
    const body = choiceReward(1_000, { currency: 'EUR', fundingCurrency: 'USD' });
    const first = await t.api.as(m.key).post('/v1/rewards', body, { headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(201);

    const [{ as_of }] = await dataSource.query(`SELECT max(as_of) AS as_of FROM fx_rates WHERE source = 'sandbox'`);
    clock.freeze(new Date(new Date(as_of).getTime() + 24 * 3_600_000 + 1_000));
    const wallets = async () => (await t.api.as(m.readKey).get('/v1/wallets')).body.wallets;
    const before = await wallets();

    for (const [path, refusedBody] of [
      ['/v1/rewards', choiceReward(1_000, { currency: 'EUR', fundingCurrency: 'USD' })],
      ['/v1/rewards?dry_run=true', choiceReward(1_000, { currency: 'GBP', fundingCurrency: 'USD' })],
    ] as const) {
      const refused = await t.api.as(m.key).post(path, refusedBody);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('60');
      expect(refused.body).toEqual({ error: 'internal', message: expect.stringContaining('older than 24 hours') });
    }
    expect(await wallets()).toEqual(before);
    expect(await countRows(dataSource, 'SELECT 1 FROM rewards WHERE account_id = $1', [m.accountId])).toBe(1);

    // The retry of the send that went through answers what it answered, whatever the rates do now.
    const replay = await t.api.as(m.key).post('/v1/rewards', body, { headers: { 'Idempotency-Key': key } });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);

    // Held from its own currency's wallet, a send needs no rate.
    expect((await t.api.as(m.key).post('/v1/rewards', choiceReward(1_000, { currency: 'EUR' }))).status).toBe(201);
    // In a bulk, the funded item fails alone.
    const bulk = await t.api.as(m.key).post('/v1/rewards/bulk', {
      rewards: [choiceReward(1_000, { currency: 'EUR', fundingCurrency: 'USD' }), choiceReward(1_000)],
    });
    expect(bulk.body.results.map((r: any) => r.error?.split(':')[0] ?? 'ok')).toEqual(['internal', 'ok']);
    await expectLedgerInvariants(dataSource, m.accountId);
  });
});
