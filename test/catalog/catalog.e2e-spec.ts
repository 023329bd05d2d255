import { SANDBOX_CATALOG } from '../../libs/catalog/src/supplier/sandbox-catalog';
import { ApiClient } from '../support/api-client';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

/** Reads of the sandbox catalog, which every app start syncs into the (shared) test database. */
describe('GET /v1/catalog', () => {
  let t: TestApp;
  let merchant: SeededMerchant;
  let api: ApiClient;
  const sandboxItems = SANDBOX_CATALOG.flatMap((brand) => brand.items);

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await seedMerchant(t);
    api = t.api.as(merchant.readKey);
  });
  afterAll(() => t.close());

  const brandKeys = (body: { brands: { brandKey: string }[] }) => body.brands.map((b) => b.brandKey);
  const allItems = (body: { brands: { items: any[] }[] }) => body.brands.flatMap((b) => b.items);

  it('lists every active brand with its items, sorted by name, values as numbers in major units', async () => {
    const res = await api.get('/v1/catalog');
    expect(res.status).toBe(200);
    expect(res.body.brands).toHaveLength(SANDBOX_CATALOG.length);
    expect(allItems(res.body)).toHaveLength(sandboxItems.length);

    const names: string[] = res.body.brands.map((b: { name: string }) => b.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' })));
    // Case does not decide the order: "bol.com" sits among the Bs, not after "Zalando".
    expect(names.indexOf('bol.com')).toBeLessThan(names.indexOf('Canadian Tire'));

    const amazon = res.body.brands.find((b: { brandKey: string }) => b.brandKey === 'amazon-us');
    expect(amazon).toMatchObject({
      name: 'Amazon.com',
      imageUrl: 'https://cdn.rewards.example/brands/amazon-us.png',
      categories: ['Online Shopping', 'Electronics'],
      shortDescription: expect.any(String),
      description: expect.stringContaining('Amazon.com'),
      disclaimer: expect.stringContaining('not a sponsor'),
    });
    expect(amazon.items).toContainEqual({
      utid: 'U356303',
      rewardName: 'Amazon.com $25 Gift Card',
      currencyCode: 'USD',
      valueType: 'FIXED_VALUE',
      faceValue: 25,
      minValue: null,
      maxValue: null,
      countries: ['US'],
    });
    expect(amazon.items).toContainEqual(
      expect.objectContaining({ valueType: 'VARIABLE_VALUE', faceValue: null, minValue: 1, maxValue: 2000 }),
    );
    expect(res.text).toContain('"faceValue":25,'); // a JSON number, not "25.00"
  });

  it('search filters on brand name, case-insensitively, and treats LIKE wildcards literally', async () => {
    const res = await api.get('/v1/catalog?search=AMAZON');
    expect(brandKeys(res.body).sort()).toEqual(['amazon-ca', 'amazon-de', 'amazon-uk', 'amazon-us']);
    expect((await api.get('/v1/catalog?search=%25')).body.brands).toEqual([]);
    expect((await api.get('/v1/catalog?search=_')).body.brands).toEqual([]);
    expect(brandKeys((await api.get('/v1/catalog?search=%26%20sp')).body)).toEqual(['marks-and-spencer']);
  });

  it('currency keeps only items in that currency, any case, and drops brands left empty', async () => {
    const res = await api.get('/v1/catalog?currency=eur');
    expect(res.status).toBe(200);
    const items = allItems(res.body);
    expect(items).toHaveLength(sandboxItems.filter((i) => i.currencyCode === 'EUR').length);
    expect(new Set(items.map((i) => i.currencyCode))).toEqual(new Set(['EUR']));
    expect(brandKeys(res.body)).toContain('zalando');
    expect(brandKeys(res.body)).not.toContain('walmart');
    // Apple is listed with its EUR item only.
    expect(res.body.brands.find((b: { brandKey: string }) => b.brandKey === 'apple').items).toHaveLength(1);
  });

  it('country keeps only items redeemable there, any case', async () => {
    const res = await api.get('/v1/catalog?country=gb');
    const items = allItems(res.body);
    expect(items).toHaveLength(sandboxItems.filter((i) => i.countries.includes('GB')).length);
    for (const item of items) expect(item.countries).toContain('GB');
    expect(brandKeys(res.body)).toContain('tesco');
    expect(brandKeys(res.body)).not.toContain('fnac');
  });

  it('combines filters, each narrowing the items', async () => {
    const apple = await api.get('/v1/catalog?search=apple&currency=CAD&country=ca');
    expect(brandKeys(apple.body)).toEqual(['apple']);
    expect(apple.body.brands[0].items).toEqual([expect.objectContaining({ currencyCode: 'CAD', countries: ['CA'] })]);

    const amazonEuro = await api.get('/v1/catalog?search=amazon&currency=EUR');
    expect(brandKeys(amazonEuro.body)).toEqual(['amazon-de']);

    const none = await api.get('/v1/catalog?search=walmart&country=FR');
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ brands: [] });
  });

  it.each([
    ['currency=US', 'currency'],
    ['currency=USDX', 'currency'],
    ['country=USA', 'country'],
    ['country=U', 'country'],
  ])('refuses %s with a 400 naming the field', async (query, field) => {
    const res = await api.get(`/v1/catalog?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('bad_request');
    expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual([field]);
  });

  it('refuses an unknown query parameter and a repeated one', async () => {
    const unknown = await api.get('/v1/catalog?brand=amazon');
    expect(unknown.status).toBe(400);
    expect(unknown.body.issues.map((i: { path: string }) => i.path)).toEqual(['brand']);
    const repeated = await api.get('/v1/catalog?currency=USD&currency=EUR');
    expect(repeated.status).toBe(400);
    expect(repeated.body.issues[0].path).toBe('currency');
  });

  it('GET /v1/catalog/brands/{brandKey} returns one brand with all its items; unknown is 404', async () => {
    const res = await api.get('/v1/catalog/brands/apple');
    expect(res.status).toBe(200);
    expect(res.body.brand).toMatchObject({ brandKey: 'apple', name: 'Apple' });
    expect(res.body.brand.items.map((i: { currencyCode: string }) => i.currencyCode)).toEqual(['CAD', 'EUR', 'GBP', 'USD']);

    const missing = await api.get('/v1/catalog/brands/no-such-brand');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('not_found');
    // A 404 must not be cached for five minutes: the brand may appear with the next sync.
    expect(missing.headers.get('cache-control')).toBe('no-store');
  });

  describe('caching', () => {
    it('sends a strong ETag (ours, not Express\'s weak one) and Cache-Control on both endpoints', async () => {
      for (const path of ['/v1/catalog', '/v1/catalog/brands/amazon-us']) {
        const res = await api.get(path);
        expect(res.headers.get('etag')).toMatch(/^"\d+-[A-Za-z0-9_-]{22}"$/);
        expect(res.headers.get('cache-control')).toBe('private, max-age=300');
        expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      }
    });

    it('answers 304 without a body to a matching If-None-Match: single, in a list, weak-prefixed, or *', async () => {
      const first = await api.get('/v1/catalog?currency=USD');
      const etag = first.headers.get('etag')!;
      for (const condition of [etag, `"nope", ${etag}`, `W/${etag}`, '*']) {
        const res = await api.get('/v1/catalog?currency=USD', { headers: { 'if-none-match': condition } });
        expect(res.status).toBe(304);
        expect(res.text).toBe('');
        expect(res.headers.get('etag')).toBe(etag);
        expect(res.headers.get('cache-control')).toBe('private, max-age=300');
      }
    });

    it('answers 200 with the body when If-None-Match does not match', async () => {
      const res = await api.get('/v1/catalog?currency=USD', { headers: { 'if-none-match': '"0-stale", W/"other"' } });
      expect(res.status).toBe(200);
      expect(allItems(res.body).length).toBeGreaterThan(0);
    });

    it('gives different filters different ETags, and equivalent filters the same one', async () => {
      const usd = (await api.get('/v1/catalog?currency=USD')).headers.get('etag');
      const eur = (await api.get('/v1/catalog?currency=EUR')).headers.get('etag');
      const all = (await api.get('/v1/catalog')).headers.get('etag');
      expect(new Set([usd, eur, all]).size).toBe(3);
      expect((await api.get('/v1/catalog?currency=usd')).headers.get('etag')).toBe(usd);

      const notModified = await api.get('/v1/catalog?currency=EUR', { headers: { 'if-none-match': usd! } });
      expect(notModified.status).toBe(200);
    });

    it('revalidates a brand: 304 for its ETag, but never 304 for a brand that does not exist', async () => {
      const etag = (await api.get('/v1/catalog/brands/steam')).headers.get('etag')!;
      expect((await api.get('/v1/catalog/brands/steam', { headers: { 'if-none-match': etag } })).status).toBe(304);
      expect((await api.get('/v1/catalog/brands/xbox', { headers: { 'if-none-match': etag } })).status).toBe(200);
      expect((await api.get('/v1/catalog/brands/no-such-brand', { headers: { 'if-none-match': '*' } })).status).toBe(404);
    });
  });

  it('needs catalog:read: a write-only key gets 403, no key gets 401', async () => {
    for (const path of ['/v1/catalog', '/v1/catalog/brands/amazon-us']) {
      const forbidden = await t.api.as(merchant.writeKey).get(path);
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.message).toContain('catalog:read');
      expect((await t.api.get(path)).status).toBe(401);
    }
  });
});
