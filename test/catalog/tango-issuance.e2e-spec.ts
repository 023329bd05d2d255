import { DataSource } from 'typeorm';
import { CatalogSyncService, externalRefIdOf } from '@app/catalog';
import { CARD_ISSUANCE_QUEUE } from '@app/core';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { eventually } from '../support/processes';
import { promoteDelayedJob } from '../support/queues';
import { fixedReward, fund } from '../support/rewards';
import { TANGO_DOUBLE_CREDENTIALS, TangoDouble, defaultTangoCatalog } from '../support/tango-double';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';

/**
 * The service with SUPPLIER=tango, API and worker side, against the local double of Tango's RaaS API:
 * the catalog synced from it into our tables, and FIXED cards issued, refused, and retried through it
 * (docs/suppliers.md).
 */
describe('SUPPLIER=tango end to end', () => {
  let double: TangoDouble;
  let t: TestApp;
  let worker: TestWorker;
  let dataSource: DataSource;

  beforeAll(async () => {
    double = new TangoDouble();
    const baseUrl = await double.start();
    t = await startTestApp({
      env: { SUPPLIER: 'tango', TANGO_BASE_URL: baseUrl, SUPPLIER_TIMEOUT_MS: '500', ...TANGO_DOUBLE_CREDENTIALS },
    });
    worker = await startTestWorker(t);
    dataSource = t.app.get(DataSource);
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await double?.stop();
  });
  afterEach(() => {
    double.brands = defaultTangoCatalog();
  });

  const merchant = async (cents: number) => {
    const m = await seedMerchant(t);
    await fund(t, m, cents);
    return m;
  };
  const send = async (m: SeededMerchant, utid: string, valueCents: number) => {
    const res = await t.api.as(m.key).post('/v1/rewards', fixedReward({ utid, brandKey: '', valueCents }));
    expect(res.status).toBe(201);
    return { rewardId: res.body.reward.id as string, cardId: res.body.reward.issuedCards[0].id as string };
  };
  const settledCard = (m: SeededMerchant, rewardId: string, status: 'ISSUED' | 'FAILED') =>
    eventually(async () => {
      const reward = (await t.api.as(m.key).get(`/v1/rewards/${rewardId}?include_credentials=true`)).body.reward;
      return reward.issuedCards[0].status === status ? reward : undefined;
    }, 30_000);
  const wallet = async (m: SeededMerchant) => (await t.api.as(m.key).get('/v1/wallet')).body.wallet;
  /** The issuance job's retry, waiting out its backoff (2 s), made due now rather than waited for. */
  const retryNow = (cardId: string) => promoteDelayedJob(worker.app, CARD_ISSUANCE_QUEUE, (job) => job.data.cardId === cardId);

  it("syncs Tango's catalog into our tables at start: orderable items active, the rest left out or deactivated", async () => {
    const items = await dataSource.query(`SELECT utid, brand_key, currency_code, value_type, face_value::text, min_value::text, max_value::text, active FROM catalog_items ORDER BY utid`);
    expect(items).toEqual([
      { utid: 'U100025', brand_key: 'B916708', currency_code: 'USD', value_type: 'FIXED_VALUE', face_value: '25.00', min_value: null, max_value: null, active: true },
      { utid: 'U154092', brand_key: 'B725361', currency_code: 'USD', value_type: 'FIXED_VALUE', face_value: '10.00', min_value: null, max_value: null, active: true },
      { utid: 'U666425', brand_key: 'B916708', currency_code: 'USD', value_type: 'VARIABLE_VALUE', face_value: null, min_value: '0.01', max_value: '2000.00', active: true },
      { utid: 'U913336', brand_key: 'B725361', currency_code: 'EUR', value_type: 'FIXED_VALUE', face_value: '25.00', min_value: null, max_value: null, active: true },
    ]);
    const [brand] = await dataSource.query(`SELECT name, image_url, disclaimer FROM catalog_brands WHERE brand_key = 'B916708'`);
    expect(brand).toEqual({
      name: 'Amazon.com',
      image_url: 'https://images.tango.example/brands/b916708-300w-326ppi.png',
      disclaimer: 'Amazon.com is not a sponsor of the promotion.\n\nRestrictions apply, see amazon.com/gc-legal.',
    });
    // Served from our tables; a USD wallet cannot pay for the EUR item: a send of it is refused.
    const m = await merchant(10_000);
    const listed = async (query = '') =>
      (await t.api.as(m.readKey).get(`/v1/catalog${query}`)).body.brands.flatMap((b: any) => b.items.map((i: any) => i.utid)).sort();
    expect(await listed()).toEqual(['U100025', 'U154092', 'U666425', 'U913336']);
    expect(await listed('?currency=USD')).toEqual(['U100025', 'U154092', 'U666425']);
    // A EUR item is sendable (rewards in any catalog currency: docs/currencies.md); this merchant holds no EUR.
    const eur = await t.api.as(m.key).post('/v1/rewards', fixedReward({ utid: 'U913336', brandKey: '', valueCents: 2_500 }));
    expect(eur.status).toBe(402);
    expect(eur.body.message).toContain('EUR');

    // An item Tango stops offering is deactivated by the next sync.
    double.brands[0].items.find((i) => i.utid === 'U100025')!.status = 'inactive';
    await t.app.get(CatalogSyncService).sync();
    expect((await dataSource.query(`SELECT active FROM catalog_items WHERE utid = 'U100025'`))[0].active).toBe(false);
    double.brands = defaultTangoCatalog();
    await t.app.get(CatalogSyncService).sync();
    expect((await dataSource.query(`SELECT active FROM catalog_items WHERE utid = 'U100025'`))[0].active).toBe(true);
  });

  it("issues a FIXED card through Tango: one order, externalRefID = card id (letters and digits), sendEmail false, Tango's credentials", async () => {
    const m = await merchant(100_000);
    const { rewardId, cardId } = await send(m, 'U100025', 2_500);
    const reward = await settledCard(m, rewardId, 'ISSUED');
    const [order] = double.ordersFor(externalRefIdOf(cardId));
    expect(double.ordersFor(externalRefIdOf(cardId))).toHaveLength(1);
    expect(double.orderRequests().filter((r) => (r.body as any).externalRefID === externalRefIdOf(cardId)).map((r) => r.body)).toEqual([
      { accountIdentifier: 'rewards-account', customerIdentifier: 'rewards-customer', amount: 25, utid: 'U100025', sendEmail: false, externalRefID: externalRefIdOf(cardId) },
    ]);
    expect(reward.issuedCards[0].credentials.map((c: any) => [c.label, c.value, c.type])).toEqual(
      order.reward!.credentialList!.map((c) => [c.label, c.value, c.type]),
    );
    expect(await wallet(m)).toMatchObject({ availableCents: 97_500, reservedCents: 0 });
    await expectLedgerInvariants(dataSource, m.accountId);
  });

  it('a 4xx refusal fails the card for good: card.failed, the value back in the wallet, no order', async () => {
    const m = await merchant(10_000);
    // Tango stopped offering the item after our last sync: it refuses the order with a 400.
    double.brands[1].items.find((i) => i.utid === 'U154092')!.status = 'inactive';
    const { rewardId, cardId } = await send(m, 'U154092', 1_000);
    const reward = await settledCard(m, rewardId, 'FAILED');
    expect(reward.events.map((e: any) => e.type)).toEqual(['reward.created', 'reward.sent', 'card.failed']);
    const [event] = await dataSource.query(`SELECT data FROM events WHERE type = 'card.failed' AND data->>'rewardId' = $1`, [rewardId]);
    expect(event.data.card).toMatchObject({ id: cardId, status: 'FAILED' });
    expect(double.orderRequests().filter((r) => (r.body as any).externalRefID === externalRefIdOf(cardId))).toHaveLength(1);
    expect(double.ordersFor(externalRefIdOf(cardId))).toHaveLength(0);
    expect(await wallet(m)).toMatchObject({ availableCents: 10_000, reservedCents: 0 });
    await expectLedgerInvariants(dataSource, m.accountId);
  });

  it('a timeout after Tango took the order: the retry looks the order up by externalRefID, exactly one order, captured once', async () => {
    const m = await merchant(10_000);
    double.failNext(1, { kind: 'hang', afterOrder: true });
    const { rewardId, cardId } = await send(m, 'U100025', 2_500);
    await retryNow(cardId);
    const reward = await settledCard(m, rewardId, 'ISSUED');
    // After a timeout the order may exist: it is asked about, never placed blind a second time.
    expect(double.lookupsOf(externalRefIdOf(cardId)).length).toBeGreaterThanOrEqual(1);
    expect(double.orderRequests().filter((r) => (r.body as any).externalRefID === externalRefIdOf(cardId))).toHaveLength(1);
    expect(double.ordersFor(externalRefIdOf(cardId))).toHaveLength(1);
    expect(reward.issuedCards[0].credentials[0].value).toBe(double.ordersFor(externalRefIdOf(cardId))[0].reward!.credentialList![0].value);
    const captures = await dataSource.query(`SELECT count(*)::int AS n FROM wallet_transactions WHERE related_id = $1 AND kind = 'CAPTURE'`, [cardId]);
    expect(captures[0].n).toBe(1);
    expect(await wallet(m)).toMatchObject({ availableCents: 7_500, reservedCents: 0 });
    await expectLedgerInvariants(dataSource, m.accountId);
  });

  it('a 5xx is transient: the card stays PENDING, is asked again and issued, one order', async () => {
    const m = await merchant(10_000);
    double.failNext(1, { kind: 'status', status: 503, retryAfter: '1' });
    const { rewardId, cardId } = await send(m, 'U666425', 1_234);
    await retryNow(cardId);
    await settledCard(m, rewardId, 'ISSUED');
    expect(double.orderRequests().filter((r) => (r.body as any).externalRefID === externalRefIdOf(cardId)).length).toBeGreaterThanOrEqual(2);
    expect(double.ordersFor(externalRefIdOf(cardId))).toHaveLength(1);
    expect(double.ordersFor(externalRefIdOf(cardId))[0].denomination).toEqual({ value: 12.34, currencyCode: 'USD' });
    expect(await wallet(m)).toMatchObject({ availableCents: 10_000 - 1_234, reservedCents: 0 });
    await expectLedgerInvariants(dataSource, m.accountId);
  });
});
