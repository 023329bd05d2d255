import { DataSource } from 'typeorm';
import { CATALOG_CHANGED_CHANNEL, CatalogService, CatalogSyncService, GiftCardSupplier, SupplierBrand } from '@app/catalog';
import { PgNotifications, Sweepers } from '@app/core';
import { SANDBOX_CATALOG } from '../../libs/catalog/src/supplier/sandbox-catalog';
import { ApiClient } from '../support/api-client';
import { eventually } from '../support/processes';
import { seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

/** A supplier whose catalog the test edits; card issuance is not part of the sync. */
class EditableCatalogSupplier implements GiftCardSupplier {
  brands: SupplierBrand[] = structuredClone(SANDBOX_CATALOG) as SupplierBrand[];

  async listCatalog(): Promise<SupplierBrand[]> {
    return structuredClone(this.brands);
  }
  async issueCard(): Promise<never> {
    throw new Error('not used by the sync');
  }
  async getCard(): Promise<null> {
    return null;
  }
}

const AMAZON_25 = 'U356303';

describe('catalog sync', () => {
  let t: TestApp;
  let worker: TestWorker;
  let api: ApiClient;
  let supplier: EditableCatalogSupplier;
  let sync: CatalogSyncService;
  let catalog: CatalogService;

  beforeAll(async () => {
    t = await startTestApp();
    worker = await startTestWorker(t);
    api = t.api.as((await seedMerchant(t)).readKey);
    supplier = new EditableCatalogSupplier();
    catalog = t.app.get(CatalogService);
    sync = new CatalogSyncService(t.app.get(DataSource), supplier, catalog);
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
  });
  beforeEach(async () => {
    // Each test starts from the sandbox catalog the app synced at start.
    supplier.brands = structuredClone(SANDBOX_CATALOG) as SupplierBrand[];
    await sync.sync();
  });

  const utids = async (path = '/v1/catalog') =>
    (await api.get(path)).body.brands.flatMap((b: { items: { utid: string }[] }) => b.items.map((i) => i.utid));
  const amazonUs = () => supplier.brands.find((b) => b.brandKey === 'amazon-us')!;

  it('the app synced the catalog into the fresh database at start', async () => {
    expect((await utids()).length).toBe(SANDBOX_CATALOG.flatMap((b) => b.items).length);
  });

  it('is idempotent: a second sync of the same catalog changes nothing, not even the revision or ETag', async () => {
    const etag = (await api.get('/v1/catalog')).headers.get('etag')!;
    const first = await sync.sync();
    const second = await sync.sync();
    expect(first).toMatchObject({ changed: false, brands: { upserted: 0, deactivated: 0 }, items: { upserted: 0, deactivated: 0 } });
    expect(second.revision).toBe(first.revision);
    expect((await api.get('/v1/catalog', { headers: { 'if-none-match': etag } })).status).toBe(304);
  });

  it('deactivates an item the supplier stops offering (keeping its row) and invalidates cached copies', async () => {
    const before = await api.get('/v1/catalog');
    const brandBefore = await api.get('/v1/catalog/brands/amazon-us');
    amazonUs().items = amazonUs().items.filter((item) => item.utid !== AMAZON_25);

    const result = await sync.sync();
    expect(result).toMatchObject({ changed: true, items: { upserted: 0, deactivated: 1 } });

    expect(await utids()).not.toContain(AMAZON_25);
    expect(await utids('/v1/catalog?search=amazon')).not.toContain(AMAZON_25);
    expect((await api.get('/v1/catalog/brands/amazon-us')).body.brand.items.map((i: { utid: string }) => i.utid)).not.toContain(AMAZON_25);
    expect(await catalog.findActiveItem(AMAZON_25)).toBeNull();
    const [row] = await t.app.get(DataSource).query('SELECT active FROM catalog_items WHERE utid = $1', [AMAZON_25]);
    expect(row).toEqual({ active: false });

    for (const [path, old] of [['/v1/catalog', before], ['/v1/catalog/brands/amazon-us', brandBefore]] as const) {
      const res = await api.get(path, { headers: { 'if-none-match': old.headers.get('etag')! } });
      expect(res.status).toBe(200);
      expect(res.headers.get('etag')).not.toBe(old.headers.get('etag'));
    }

    // Offered again: active again, under the same utid.
    supplier.brands = structuredClone(SANDBOX_CATALOG) as SupplierBrand[];
    expect((await sync.sync()).items.upserted).toBe(1);
    expect(await utids()).toContain(AMAZON_25);
  });

  it('deactivates a brand the supplier drops: 404 by key, gone from the list and from activeBrandKeys', async () => {
    supplier.brands = supplier.brands.filter((b) => b.brandKey !== 'steam');
    const result = await sync.sync();
    expect(result).toMatchObject({ changed: true, brands: { deactivated: 1 } });
    expect((await api.get('/v1/catalog/brands/steam')).status).toBe(404);
    expect((await api.get('/v1/catalog?search=steam')).body.brands).toEqual([]);
    expect(await catalog.activeBrandKeys(['steam', 'xbox', 'nope'])).toEqual(['xbox']);
  });

  it('applies changed fields of brands and items, and bumps the revision exactly once', async () => {
    const before = await catalog.revision();
    amazonUs().name = 'Amazon.com (US)';
    amazonUs().items.find((i) => i.valueType === 'VARIABLE_VALUE')!.maxValue = 1500.5;
    const result = await sync.sync();
    expect(result).toMatchObject({ changed: true, revision: before + 1, brands: { upserted: 1 }, items: { upserted: 1 } });
    const brand = (await api.get('/v1/catalog/brands/amazon-us')).body.brand;
    expect(brand.name).toBe('Amazon.com (US)');
    expect(brand.items.find((i: { valueType: string }) => i.valueType === 'VARIABLE_VALUE').maxValue).toBe(1500.5);
  });

  it('concurrent syncs all succeed and apply a change once', async () => {
    const before = await catalog.revision();
    amazonUs().shortDescription = 'Concurrently changed.';
    const results = await Promise.all(Array.from({ length: 5 }, () => sync.sync()));
    expect(results.filter((r) => r.changed)).toHaveLength(1);
    expect(await catalog.revision()).toBe(before + 1);
    expect((await api.get('/v1/catalog/brands/amazon-us')).body.brand.shortDescription).toBe('Concurrently changed.');
  });

  it('exposes items and brands to the rest of the service', async () => {
    const found = await catalog.findActiveItem(AMAZON_25);
    expect(found?.item).toMatchObject({ utid: AMAZON_25, faceValue: 25, currencyCode: 'USD' });
    expect(found?.brand).toMatchObject({ brandKey: 'amazon-us', name: 'Amazon.com' });
    expect(await catalog.findActiveItem('U000000')).toBeNull();

    const cad = await catalog.listActiveBrands({ currency: 'cad', brandKeys: ['apple', 'steam', 'walmart'] });
    expect(cad.map((l) => l.brand.brandKey)).toEqual(['apple', 'steam']);
    for (const listing of cad) for (const item of listing.items) expect(item.currencyCode).toBe('CAD');
  });

  it('the worker side registers the hourly sync with its sweeps', () => {
    expect(worker.app.get(Sweepers).names()).toContain('catalog-sync');
  });

  it('a sync committed by another process changes the ETag here within moments (the revision is announced, not polled)', async () => {
    await api.get('/v1/catalog');
    // From here the revision is held in memory, kept current only by the database's announcements.
    await eventually(async () => t.app.get(PgNotifications).live(CATALOG_CHANGED_CHANNEL) || undefined, 5_000, 20);
    const before = await api.get('/v1/catalog');
    const etag = before.headers.get('etag')!;
    // Another process's sync: its own CatalogService, so this app is told only by the database.
    const elsewhere = new CatalogSyncService(t.app.get(DataSource), supplier, { revisionChanged: () => undefined } as unknown as CatalogService);
    supplier.brands = supplier.brands.filter((b) => b.brandKey !== 'amazon-us');
    expect((await elsewhere.sync()).changed).toBe(true);
    const started = Date.now();
    await eventually(async () => (await api.get('/v1/catalog', { headers: { 'if-none-match': etag } })).status === 200 || undefined, 4_000, 10);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  describe('catalog.updated', () => {
    let receiver: WebhookReceiver;
    beforeAll(async () => {
      receiver = await new WebhookReceiver().start();
    });
    afterAll(() => receiver.close());

    /** The catalog.updated events of the account created since `since`, newest first. */
    const catalogEvents = async (key: string, since: string) =>
      (await t.api.as(key).get(`/v1/events?type=catalog.updated&created_gte=${since}`)).body.events as { id: string; data: unknown }[];

    it("is sent once per sync to each account that may see a changed item, listing only what its rules allow", async () => {
      const [open, coffee, amazonOnly] = await Promise.all([seedMerchant(t), seedMerchant(t), seedMerchant(t)]);
      expect((await t.api.as(coffee.key).put('/v1/account/catalog-rules', { allowedBrandKeys: ['starbucks'], blockedBrandKeys: [] })).status).toBe(200);
      expect((await t.api.as(amazonOnly.key).put('/v1/account/catalog-rules', { allowedBrandKeys: ['amazon-us', 'steam'], blockedBrandKeys: ['steam'] })).status).toBe(200);
      const hook = await t.api.as(open.key).post('/v1/webhook-endpoints', { url: receiver.url('/catalog'), events: ['catalog.updated'] });
      expect(hook.status).toBe(201);

      const since = new Date(Date.now() - 1).toISOString();
      const variable = amazonUs().items.find((i) => i.valueType === 'VARIABLE_VALUE')!;
      variable.maxValue = 1234;
      amazonUs().items = amazonUs().items.filter((item) => item.utid !== AMAZON_25);
      const steam = supplier.brands.find((b) => b.brandKey === 'steam')!;
      steam.items.push({ ...steam.items[0], utid: 'U999001', rewardName: 'Steam Wallet Code (new)' });
      // Several processes sync at once: the change, and its events, commit once.
      await Promise.all([sync.sync(), sync.sync(), new CatalogSyncService(t.app.get(DataSource), supplier, catalog).sync()]);

      const all = await catalogEvents(open.readKey, since);
      expect(all).toHaveLength(1);
      expect(all[0].data).toEqual({ added: ['U999001'], removed: [AMAZON_25], changed: [variable.utid] });
      // Steam is blocked for this account: its new item is left out.
      const restricted = await catalogEvents(amazonOnly.readKey, since);
      expect(restricted.map((e) => e.data)).toEqual([{ added: [], removed: [AMAZON_25], changed: [variable.utid] }]);
      // Nothing this account may offer changed: no event at all.
      expect(await catalogEvents(coffee.readKey, since)).toEqual([]);

      // Delivered as a webhook like any event (the receiver checks the payload against the contract).
      const [delivered] = await eventually(async () => receiver.at('/catalog').length > 0 && receiver.at('/catalog'));
      expect(delivered.json).toEqual({ id: all[0].id, type: 'catalog.updated', createdAt: expect.any(String), data: all[0].data });
    });

    it('a sync that changes nothing sends nothing', async () => {
      const merchant = await seedMerchant(t);
      const since = new Date(Date.now() - 1).toISOString();
      await sync.sync();
      expect(await catalogEvents(merchant.readKey, since)).toEqual([]);
    });
  });
});
