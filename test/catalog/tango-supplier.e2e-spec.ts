import { externalRefIdOf, SupplierError, TangoSupplier } from '@app/catalog';
import { TANGO_DOUBLE_CREDENTIALS, TangoDouble } from '../support/tango-double';

/** The Tango adapter over real HTTP against the local double of Tango's wire format (docs/suppliers.md). */
describe('Tango supplier adapter', () => {
  let double: TangoDouble;
  let baseUrl: string;
  const supplier = (overrides: Partial<ConstructorParameters<typeof TangoSupplier>[0]> = {}) =>
    new TangoSupplier({
      baseUrl,
      platformName: TANGO_DOUBLE_CREDENTIALS.TANGO_PLATFORM_NAME,
      platformKey: TANGO_DOUBLE_CREDENTIALS.TANGO_PLATFORM_KEY,
      customerIdentifier: TANGO_DOUBLE_CREDENTIALS.TANGO_CUSTOMER_IDENTIFIER,
      accountIdentifier: TANGO_DOUBLE_CREDENTIALS.TANGO_ACCOUNT_IDENTIFIER,
      timeoutMs: 400,
      ...overrides,
    });
  const rejection = async (promise: Promise<unknown>): Promise<SupplierError> => {
    try {
      await promise;
    } catch (error) {
      expect(error).toBeInstanceOf(SupplierError);
      return error as SupplierError;
    }
    throw new Error('expected a SupplierError');
  };
  let seq = 0;
  const reference = () => `card_tango${++seq}${Date.now().toString(36)}`;

  beforeEach(async () => {
    double = new TangoDouble();
    baseUrl = await double.start();
  });
  afterEach(() => double.stop());

  it('maps the catalog: only active brands and items with a known value type, one image, plain text', async () => {
    const brands = await supplier().listCatalog();
    expect(brands.map((b) => b.brandKey)).toEqual(['B916708', 'B725361']);
    const amazon = brands[0];
    expect(amazon).toMatchObject({
      name: 'Amazon.com',
      description: 'Amazon.com Gift Cards never expire & can be redeemed towards millions of items.',
      shortDescription: 'Shop millions of items.',
      disclaimer: 'Amazon.com is not a sponsor of the promotion.\n\nRestrictions apply, see amazon.com/gc-legal.',
      imageUrl: 'https://images.tango.example/brands/b916708-300w-326ppi.png',
      categories: [],
    });
    expect(amazon.items).toEqual([
      { utid: 'U666425', rewardName: 'Amazon.com Gift Card', currencyCode: 'USD', valueType: 'VARIABLE_VALUE', faceValue: null, minValue: 0.01, maxValue: 2000, countries: ['US'] },
      { utid: 'U100025', rewardName: 'Amazon.com Gift Card $25.00', currencyCode: 'USD', valueType: 'FIXED_VALUE', faceValue: 25, minValue: null, maxValue: null, countries: ['US'] },
    ]);
    // The EUR item stays (the wallet-currency filter applies at read time); the POINTS item does not.
    expect(brands[1].items.map((i) => [i.utid, i.currencyCode, i.countries])).toEqual([
      ['U154092', 'USD', ['US']],
      ['U913336', 'EUR', ['DE', 'FR']],
    ]);
    const [request] = double.requests;
    expect([request.method, request.path, request.authorization]).toEqual([
      'GET',
      '/raas/v2/catalogs',
      `Basic ${Buffer.from('RewardsTestPlatform:double-platform-key-5f0c').toString('base64')}`,
    ]);
  });

  it('places an order with Tango field names and types and maps its credentials to our four types', async () => {
    const ref = reference();
    const card = await supplier().issueCard({ utid: 'U666425', amountCents: 1234, currency: 'USD', reference: ref });
    expect(double.orderRequests().map((r) => r.body)).toEqual([
      {
        accountIdentifier: 'rewards-account',
        customerIdentifier: 'rewards-customer',
        amount: 12.34,
        utid: 'U666425',
        sendEmail: false,
        externalRefID: externalRefIdOf(ref),
      },
    ]);
    expect(externalRefIdOf(ref)).toMatch(/^card[A-Za-z0-9]+$/);
    expect(card).toMatchObject({ reference: ref, utid: 'U666425', amountCents: 1234, currency: 'USD' });
    expect(card.credentials.map((c) => [c.label, c.type])).toEqual([
      ['Card Number', 'text'],
      ['PIN', 'text'],
      ['Redemption Link', 'url'],
      ['Barcode', 'barcode'],
      ['Expiration Date', 'date'],
    ]);
    expect(card.credentials[2].value).toMatch(/^https:\/\/sandbox\.rewardlink\.example\/r\//);
    expect(card.redemptionInstructions).toBe('• Click the redemption link above.\n• Enter the card number and PIN at checkout.');
  });

  it('asking again with the same reference returns the same card and places no second order; getCard finds it', async () => {
    const ref = reference();
    const request = { utid: 'U100025', amountCents: 2500, currency: 'USD', reference: ref };
    const first = await supplier().issueCard(request);
    expect(await supplier().issueCard(request)).toEqual(first);
    expect(double.orderRequests()).toHaveLength(2);
    expect(double.orders.size).toBe(1);
    expect(await supplier().getCard(ref)).toEqual(first);
    expect(await supplier().getCard('card_never')).toBeNull();
  });

  it('getCard also finds an order placed under the reference as it was sent before it was made alphanumeric', async () => {
    const ref = reference();
    const first = await supplier().issueCard({ utid: 'U100025', amountCents: 2500, currency: 'USD', reference: ref });
    // As if Tango had taken the order with the `_` of our card id.
    double.ordersFor(externalRefIdOf(ref))[0].externalRefID = ref;
    expect(await supplier().getCard(ref)).toEqual(first);
    expect(double.lookupsOf(externalRefIdOf(ref))).toHaveLength(1);
    expect(double.lookupsOf(ref)).toHaveLength(1);
  });

  it('a reference already used for another item is a permanent error, and no second order', async () => {
    const ref = reference();
    await supplier().issueCard({ utid: 'U100025', amountCents: 2500, currency: 'USD', reference: ref });
    const error = await rejection(supplier().issueCard({ utid: 'U154092', amountCents: 1000, currency: 'USD', reference: ref }));
    expect(error.permanent).toBe(true);
    expect(double.orders.size).toBe(1);
  });

  it("Tango's 4xx refusals of the order are permanent and carry Tango's reason", async () => {
    const fixed = await rejection(supplier().issueCard({ utid: 'U100025', amountCents: 2400, currency: 'USD', reference: reference() }));
    expect(fixed.permanent).toBe(true);
    expect(fixed.message).toMatch(/^Tango refused the order: 400 Bad Request; amount: must be 25 for this item/);
    const inactive = await rejection(supplier().issueCard({ utid: 'U100099', amountCents: 9900, currency: 'USD', reference: reference() }));
    expect([inactive.permanent, inactive.message]).toEqual([true, expect.stringContaining('utid: item not found or not available')]);
    expect(double.orders.size).toBe(0);
  });

  it('401, 402 and 403 refuse our account, not the card: transient, so the card waits instead of failing and refunding', async () => {
    double.failNext(1, { kind: 'status', status: 402, message: 'Insufficient funds' });
    const broke = await rejection(supplier().issueCard({ utid: 'U100025', amountCents: 2500, currency: 'USD', reference: reference() }));
    expect([broke.permanent, broke.message]).toEqual([false, expect.stringContaining('402 Payment Required; Insufficient funds')]);
    double.failNext(1, { kind: 'status', status: 403, message: 'Forbidden' });
    const forbidden = await rejection(supplier().issueCard({ utid: 'U100025', amountCents: 2500, currency: 'USD', reference: reference() }));
    expect([forbidden.permanent, forbidden.message]).toEqual([false, expect.stringContaining('403')]);
    const unauthorized = await rejection(supplier({ platformKey: 'wrong' }).issueCard({ utid: 'U100025', amountCents: 2500, currency: 'USD', reference: reference() }));
    expect([unauthorized.permanent, unauthorized.message]).toEqual([false, expect.stringContaining('401 Unauthorized')]);
    expect(unauthorized.message).toContain('TANGO_PLATFORM_KEY');
    expect(double.orders.size).toBe(0);
  });

  it('a timeout is transient; asked again with the same reference, Tango answers the order it took, once', async () => {
    const ref = reference();
    const request = { utid: 'U100025', amountCents: 2500, currency: 'USD', reference: ref };
    double.failNext(1, { kind: 'hang', afterOrder: true });
    const timeout = await rejection(supplier().issueCard(request));
    expect([timeout.permanent, timeout.message]).toEqual([false, 'Tango did not answer the order within 400 ms.']);
    expect(double.ordersFor(externalRefIdOf(ref))).toHaveLength(1);
    const card = await supplier().issueCard(request);
    expect(card.credentials[0].value).toBe(double.ordersFor(externalRefIdOf(ref))[0].reward!.credentialList![0].value);
    expect(double.ordersFor(externalRefIdOf(ref))).toHaveLength(1);
    expect(double.orderRequests().map((r) => (r.body as { externalRefID: string }).externalRefID)).toEqual([externalRefIdOf(ref), externalRefIdOf(ref)]);
  });

  it('5xx, 408 and 429 are transient; Retry-After in seconds or as a date becomes retryAfterMs', async () => {
    const request = { utid: 'U100025', amountCents: 2500, currency: 'USD', reference: reference() };
    double.failNext(1, { kind: 'status', status: 500 });
    double.failNext(1, { kind: 'status', status: 503, afterOrder: true });
    double.failNext(1, { kind: 'status', status: 408 });
    double.failNext(1, { kind: 'status', status: 429, retryAfter: '7' });
    double.failNext(1, { kind: 'status', status: 503, retryAfter: new Date(Date.now() + 60_000).toUTCString() });
    const errors = [];
    for (let i = 0; i < 5; i++) errors.push(await rejection(supplier().issueCard(request)));
    expect(errors.map((e) => e.permanent)).toEqual([false, false, false, false, false]);
    expect(errors.map((e) => e.retryAfterMs)).toEqual([undefined, undefined, undefined, 7000, expect.any(Number)]);
    expect(errors[4].retryAfterMs).toBeGreaterThan(50_000);
    expect(errors[0].message).toMatch(/^Tango refused the order: 500 Internal Server Error; double fault 500; \[500\.000\]; \(request [0-9a-f-]{36}\)$/);
    // The 503 that still placed the order, then the retry that gets it: one order.
    expect((await supplier().issueCard(request)).utid).toBe('U100025');
    expect(double.orders.size).toBe(1);
  });

  it('a network failure and a catalog outage are transient', async () => {
    double.failNext(1, { kind: 'status', status: 502 }, 'GET /catalogs');
    expect((await rejection(supplier().listCatalog())).permanent).toBe(false);
    await double.stop();
    const unreachable = await rejection(supplier().issueCard({ utid: 'U100025', amountCents: 2500, currency: 'USD', reference: reference() }));
    expect([unreachable.permanent, unreachable.message]).toEqual([false, expect.stringMatching(/^Tango could not be reached for the order: ECONNREFUSED/)]);
  });
});
