import Stripe from 'stripe';
import { DataSource } from 'typeorm';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { StripeDouble } from '../support/stripe-double';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

const WEBHOOK_SECRET = 'whsec_test_0123456789abcdef';
// Used offline, only for its webhook signing helper.
const stripeSdk = new Stripe('sk_test_signing_only');

describe('top-ups through Stripe Checkout (against a local Stripe double)', () => {
  let stripe: StripeDouble;
  let t: TestApp;
  let merchant: SeededMerchant;

  beforeAll(async () => {
    stripe = new StripeDouble();
    const stripeUrl = await stripe.start();
    t = await startTestApp({
      env: {
        PAYMENTS_MODE: 'stripe',
        STRIPE_SECRET_KEY: 'sk_test_rewards',
        STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
        STRIPE_API_BASE_URL: stripeUrl,
      },
    });
    merchant = await seedMerchant(t);
  });
  afterAll(async () => {
    await t.close();
    await stripe.stop();
  });

  /** A Checkout event as Stripe sends it, signed the way Stripe signs it. */
  function signedEvent(type: string, session: Record<string, any>, secret = WEBHOOK_SECRET, timestamp = Math.floor(Date.now() / 1000)) {
    const payload = JSON.stringify({
      id: `evt_${Math.random().toString(36).slice(2)}`,
      object: 'event',
      type,
      api_version: '2025-01-27',
      created: Math.floor(Date.now() / 1000),
      data: { object: session },
    });
    return { payload, signature: stripeSdk.webhooks.generateTestHeaderString({ payload, secret, timestamp }) };
  }

  const deliver = ({ payload, signature }: { payload: string; signature: string }) =>
    fetch(`${t.baseUrl}/webhooks/stripe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      body: payload,
    });

  async function startCheckout(amountCents: number) {
    const res = await t.api.as(merchant.key).post('/v1/topups', { amountCents });
    expect(res.status).toBe(201);
    const sessionId = [...stripe.sessions.values()].find((s) => s.metadata.topupId === res.body.topup.id)!.id;
    return { res, session: stripe.sessions.get(sessionId)! };
  }

  const available = async () => (await t.api.as(merchant.key).get('/v1/wallet')).body.wallet.availableCents;

  it('creates a Checkout Session through the SDK and returns its URL; the top-up is PENDING', async () => {
    const before = await available();
    const { res, session } = await startCheckout(12_345);
    expect(res.body).toEqual({
      topup: expect.objectContaining({ amountCents: 12_345, currency: 'USD', provider: 'stripe', status: 'PENDING', completedAt: null }),
      checkoutUrl: session.url,
      paymentsMode: 'stripe',
    });
    const sent = stripe.requests.at(-1)!;
    expect(sent.headers.authorization).toBe('Bearer sk_test_rewards');
    expect(sent.headers['idempotency-key']).toBe(`topup-${res.body.topup.id}`);
    expect(sent.headers['content-type']).toContain('application/x-www-form-urlencoded');
    expect(Object.fromEntries(sent.params)).toMatchObject({
      mode: 'payment',
      'line_items[0][quantity]': '1',
      'line_items[0][price_data][currency]': 'usd',
      'line_items[0][price_data][unit_amount]': '12345',
      client_reference_id: res.body.topup.id,
      'metadata[topupId]': res.body.topup.id,
      'metadata[accountId]': merchant.accountId,
      success_url: `${t.baseUrl}/checkout/complete`,
    });
    expect(await available()).toBe(before);
  });

  it('credits the wallet once when checkout completes, however many times the event arrives', async () => {
    const before = await available();
    const { res, session } = await startCheckout(50_000);
    const event = signedEvent('checkout.session.completed', { ...session, status: 'complete', payment_status: 'paid' });

    const deliveries = await Promise.all([deliver(event), deliver(event), deliver(event)]);
    expect(deliveries.map((d) => d.status)).toEqual([200, 200, 200]);
    expect(await (await deliver(event)).json()).toEqual({ received: true });

    expect(await available()).toBe(before + 50_000);
    const topup = (await t.api.as(merchant.key).get('/v1/topups')).body.topups.find((x: any) => x.id === res.body.topup.id);
    expect(topup).toMatchObject({ status: 'SUCCEEDED', completedAt: expect.any(String) });
    const dataSource = t.app.get(DataSource);
    const credited = await dataSource.query(`SELECT count(*)::int AS n FROM events WHERE type = 'wallet.credited' AND data->>'topupId' = $1`, [res.body.topup.id]);
    expect(credited[0].n).toBe(1);
    await expectLedgerInvariants(dataSource, merchant.accountId);
  });

  it('refuses a forged event (wrong secret, tampered body, no signature) and credits nothing', async () => {
    const before = await available();
    const { session } = await startCheckout(7_000);
    const paid = { ...session, status: 'complete', payment_status: 'paid' };

    const forged = await deliver(signedEvent('checkout.session.completed', paid, 'whsec_attacker'));
    expect(forged.status).toBe(400);
    expect(await forged.json()).toMatchObject({ error: 'bad_request' });

    const genuine = signedEvent('checkout.session.completed', paid);
    const tampered = await deliver({ ...genuine, payload: genuine.payload.replace('"paid"', '"paid" ') });
    expect(tampered.status).toBe(400);

    const unsigned = await fetch(`${t.baseUrl}/webhooks/stripe`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: genuine.payload });
    expect(unsigned.status).toBe(400);

    // Correctly signed, but dated an hour ahead or an hour ago: refused both ways.
    const now = Math.floor(Date.now() / 1000);
    expect((await deliver(signedEvent('checkout.session.completed', paid, WEBHOOK_SECRET, now + 3600))).status).toBe(400);
    expect((await deliver(signedEvent('checkout.session.completed', paid, WEBHOOK_SECRET, now - 3600))).status).toBe(400);

    expect(await available()).toBe(before);
  });

  it('an expired session marks the top-up EXPIRED, and a late completion cannot credit it', async () => {
    const before = await available();
    const { res, session } = await startCheckout(9_900);
    expect((await deliver(signedEvent('checkout.session.expired', { ...session, status: 'expired' }))).status).toBe(200);
    const topup = (await t.api.as(merchant.key).get('/v1/topups')).body.topups.find((x: any) => x.id === res.body.topup.id);
    expect(topup.status).toBe('EXPIRED');
    await deliver(signedEvent('checkout.session.completed', { ...session, payment_status: 'paid' }));
    expect(await available()).toBe(before);
  });

  it('never credits an amount different from the one asked for, and acknowledges the event so Stripe does not retry it', async () => {
    const before = await available();
    const { res, session } = await startCheckout(1_000);
    const wrong = await deliver(signedEvent('checkout.session.completed', { ...session, payment_status: 'paid', amount_total: 999_999 }));
    expect(wrong.status).toBe(200);
    expect(await available()).toBe(before);
    const topup = (await t.api.as(merchant.key).get('/v1/topups')).body.topups.find((x: any) => x.id === res.body.topup.id);
    expect(topup.status).toBe('PENDING');
  });

  it('when Stripe is unreachable: 502, nothing charged, the top-up FAILED', async () => {
    stripe.down = true;
    try {
      const res = await t.api.as(merchant.key).post('/v1/topups', { amountCents: 2_000 });
      expect(res.status).toBe(502);
      expect(res.body).toEqual({ error: 'internal', message: expect.stringContaining('payment provider') });
    } finally {
      stripe.down = false;
    }
    const latest = (await t.api.as(merchant.key).get('/v1/topups?page_size=1')).body.topups[0];
    expect(latest).toMatchObject({ amountCents: 2_000, status: 'FAILED' });
  });
});
