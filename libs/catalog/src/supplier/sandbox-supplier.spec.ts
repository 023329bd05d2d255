import { SANDBOX_FAILING_BRAND_KEY } from './sandbox-catalog';
import { SandboxMemoryOrderBook, SandboxSupplier, sandboxLatency } from './sandbox-supplier';
import { SupplierBrand, SupplierError, SupplierItem } from './supplier.port';

const supplier = () => new SandboxSupplier(() => 0);

async function item(predicate: (brand: SupplierBrand, item: SupplierItem) => boolean): Promise<SupplierItem> {
  for (const brand of await supplier().listCatalog()) {
    const found = brand.items.find((candidate) => predicate(brand, candidate));
    if (found) return found;
  }
  throw new Error('no such item in the sandbox catalog');
}

async function rejection(promise: Promise<unknown>): Promise<SupplierError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SupplierError);
  return error as SupplierError;
}

describe('sandbox supplier catalog', () => {
  it('is a realistic catalog: 25+ brands, 80+ items, four currencies, both value types, several countries', async () => {
    const brands = await supplier().listCatalog();
    const items = brands.flatMap((b) => b.items);
    expect(brands.length).toBeGreaterThanOrEqual(25);
    expect(items.length).toBeGreaterThanOrEqual(80);
    expect(new Set(items.map((i) => i.currencyCode))).toEqual(new Set(['USD', 'EUR', 'GBP', 'CAD']));
    expect(new Set(items.map((i) => i.valueType))).toEqual(new Set(['FIXED_VALUE', 'VARIABLE_VALUE']));
    const countries = new Set(items.flatMap((i) => i.countries));
    for (const country of ['US', 'CA', 'GB', 'DE', 'FR', 'IE', 'ES', 'IT', 'NL']) expect(countries).toContain(country);
  });

  it('has unique brand keys and unique U-number utids, and every brand is complete', async () => {
    const brands = await supplier().listCatalog();
    expect(new Set(brands.map((b) => b.brandKey)).size).toBe(brands.length);
    const utids = brands.flatMap((b) => b.items.map((i) => i.utid));
    expect(new Set(utids).size).toBe(utids.length);
    for (const utid of utids) expect(utid).toMatch(/^U\d{6}$/);
    for (const brand of brands) {
      expect(brand.imageUrl).toBe(`https://cdn.rewards.example/brands/${brand.brandKey}.png`);
      for (const text of [brand.name, brand.description, brand.shortDescription, brand.disclaimer]) expect(text.length).toBeGreaterThan(0);
      expect(brand.categories.length).toBeGreaterThan(0);
      expect(brand.items.length).toBeGreaterThan(0);
      for (const i of brand.items) {
        if (i.valueType === 'FIXED_VALUE') expect([i.faceValue! > 0, i.minValue, i.maxValue]).toEqual([true, null, null]);
        else expect([i.faceValue, i.minValue! > 0, i.maxValue! > i.minValue!]).toEqual([null, true, true]);
        for (const country of i.countries) expect(country).toMatch(/^[A-Z]{2}$/);
      }
    }
  });

  it('has a test-failure brand with a USD fixed item and a USD variable item', async () => {
    const brand = (await supplier().listCatalog()).find((b) => b.brandKey === SANDBOX_FAILING_BRAND_KEY)!;
    expect(brand.items.map((i) => [i.currencyCode, i.valueType]).sort()).toEqual([
      ['USD', 'FIXED_VALUE'],
      ['USD', 'VARIABLE_VALUE'],
    ]);
  });

  it('keeps utids stable: they derive from brand, currency and value, so stored rewards keep resolving', async () => {
    const items = (await supplier().listCatalog()).flatMap((b) => b.items);
    expect(items.find((i) => i.rewardName === 'Amazon.com $25 Gift Card')?.utid).toBe('U356303');
  });
});

describe('sandbox supplier issuance', () => {
  it('issues a card with text, url, barcode and date credentials after a short delay', async () => {
    const fixed = await item((b, i) => b.brandKey === 'amazon-us' && i.faceValue === 25);
    const started = Date.now();
    const card = await new SandboxSupplier().issueCard({ utid: fixed.utid, amountCents: 2500, currency: 'USD', reference: 'card_A1' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(card).toMatchObject({ reference: 'card_A1', utid: fixed.utid, amountCents: 2500, currency: 'USD' });
    expect(card.credentials.map((c) => c.type)).toEqual(['text', 'url', 'barcode', 'date']);
    const [code, url, barcode, date] = card.credentials.map((c) => c.value);
    expect(code).toMatch(/^[A-Z2-9]{4}(-[A-Z2-9]{4}){3}$/);
    expect(new URL(url).protocol).toBe('https:');
    expect(barcode).toMatch(/^\d{11}$/);
    expect(date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(new Date(date).getTime()).toBeGreaterThan(Date.now());
    expect(card.redemptionInstructions).toContain('Amazon.com');
  });

  it('returns the same card for the same reference, also from a fresh instance (a restart)', async () => {
    const variable = await item((b, i) => b.brandKey === 'target' && i.valueType === 'VARIABLE_VALUE');
    const request = { utid: variable.utid, amountCents: 1234, currency: 'USD', reference: 'card_same' };
    const first = supplier();
    const card = await first.issueCard(request);
    expect(await first.issueCard(request)).toEqual(card);
    expect(await supplier().issueCard(request)).toEqual(card);
    const other = await first.issueCard({ ...request, reference: 'card_other' });
    expect(other.credentials[0].value).not.toBe(card.credentials[0].value);
  });

  it('getCard finds an order placed through another instance sharing the order book (another worker), never a second order', async () => {
    const book = new SandboxMemoryOrderBook();
    const repeats: string[] = [];
    book.noteRepeat = async (reference: string) => void repeats.push(reference);
    const fixed = await item((b, i) => b.brandKey === 'amazon-us' && i.faceValue === 25);
    const card = await new SandboxSupplier(() => 0, book).issueCard({ utid: fixed.utid, amountCents: 2500, currency: 'USD', reference: 'card_shared' });
    const other = new SandboxSupplier(() => 0, book);
    expect(await other.getCard('card_shared')).toEqual(card);
    expect(repeats).toEqual([]);
    // Asked again with the same reference: the original card, counted as a repeat, not a new order.
    expect(await other.issueCard({ utid: fixed.utid, amountCents: 2500, currency: 'USD', reference: 'card_shared' })).toEqual(card);
    expect(repeats).toEqual(['card_shared']);
  });

  it('places the order halfway through its latency, so a caller that gives up mid-call may leave an order behind', async () => {
    const s = new SandboxSupplier(() => 200);
    const fixed = await item((b, i) => b.brandKey === 'amazon-us' && i.faceValue === 25);
    const issuing = s.issueCard({ utid: fixed.utid, amountCents: 2500, currency: 'USD', reference: 'card_midway' });
    expect(await s.getCard('card_midway')).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await s.getCard('card_midway')).not.toBeNull();
    expect(await issuing).toEqual(await s.getCard('card_midway'));
  });

  it('latency is SANDBOX_SUPPLIER_LATENCY_MS plus 0 to SANDBOX_SUPPLIER_JITTER_MS', () => {
    const draws = Array.from({ length: 200 }, sandboxLatency(300, 50));
    const sorted = [...draws].sort((a, b) => a - b);
    expect(sorted[0]).toBeGreaterThanOrEqual(300);
    expect(sorted[sorted.length - 1]).toBeLessThanOrEqual(350);
    expect(new Set(draws).size).toBeGreaterThan(1);
    expect(new Set(Array.from({ length: 20 }, sandboxLatency(120, 0)))).toEqual(new Set([120]));
  });

  it('getCard returns a card this process issued, and null for one it never issued', async () => {
    const s = supplier();
    const fixed = await item((b, i) => b.brandKey === 'starbucks' && i.currencyCode === 'CAD' && i.faceValue === 10);
    const card = await s.issueCard({ utid: fixed.utid, amountCents: 1000, currency: 'cad', reference: 'card_get' });
    expect(await s.getCard('card_get')).toEqual(card);
    expect(await s.getCard('card_never')).toBeNull();
  });

  it('refuses to reuse a reference for a different card', async () => {
    const s = supplier();
    const variable = await item((b, i) => b.brandKey === 'target' && i.valueType === 'VARIABLE_VALUE');
    await s.issueCard({ utid: variable.utid, amountCents: 1000, currency: 'USD', reference: 'card_reuse' });
    const error = await rejection(s.issueCard({ utid: variable.utid, amountCents: 2000, currency: 'USD', reference: 'card_reuse' }));
    expect(error.permanent).toBe(true);
  });

  it('fails every test-failure card permanently, fixed and variable', async () => {
    const brand = (await supplier().listCatalog()).find((b) => b.brandKey === SANDBOX_FAILING_BRAND_KEY)!;
    for (const i of brand.items) {
      const amountCents = (i.faceValue ?? i.minValue!) * 100;
      const error = await rejection(supplier().issueCard({ utid: i.utid, amountCents, currency: 'USD', reference: `card_fail_${i.utid}` }));
      expect(error.permanent).toBe(true);
      expect(error.message).toContain('test-failure');
    }
  });

  it('rejects amounts outside the item, a currency mismatch and an unknown utid, permanently', async () => {
    const fixed = await item((b, i) => b.brandKey === 'amazon-us' && i.faceValue === 25);
    const variable = await item((b) => b.brandKey === 'the-home-depot');
    const cases = [
      { utid: fixed.utid, amountCents: 2400, currency: 'USD' },
      { utid: variable.utid, amountCents: variable.minValue! * 100 - 1, currency: 'USD' },
      { utid: variable.utid, amountCents: variable.maxValue! * 100 + 1, currency: 'USD' },
      { utid: fixed.utid, amountCents: 2500, currency: 'EUR' },
      { utid: 'U000000', amountCents: 2500, currency: 'USD' },
    ];
    for (const [index, request] of cases.entries()) {
      const error = await rejection(supplier().issueCard({ ...request, reference: `card_bad_${index}` }));
      expect(error.permanent).toBe(true);
    }
    // The edges of a range are accepted.
    const edge = await supplier().issueCard({ utid: variable.utid, amountCents: variable.maxValue! * 100, currency: 'USD', reference: 'card_edge' });
    expect(edge.amountCents).toBe(variable.maxValue! * 100);
  });
});
