import { DataSource } from 'typeorm';
import { recordEvent } from '@app/core';
import { WebhookDeliverer, WebhookRelay } from '@app/webhooks';
import { eventually } from '../support/processes';
import { isolatedDatabase, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

/** Two processes with workers on one database and one queue prefix, as `npm run start:worker` twice would be. */
describe('webhook relay with several workers', () => {
  let a: TestApp;
  let b: TestApp;
  /** The worker sides of a and b. */
  let aWorker: TestWorker;
  let bWorker: TestWorker;
  let receiver: WebhookReceiver;
  let aClosed = false;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    const env = { WEBHOOK_RETRY_BASE_MS: '50' };
    a = await startTestApp({ env });
    b = await startTestApp({ env: { ...env, QUEUE_PREFIX: a.config.queuePrefix } });
    aWorker = await startTestWorker(a);
    bWorker = await startTestWorker(b);
  });
  afterAll(async () => {
    await Promise.all([aClosed ? undefined : aWorker?.close(), bWorker?.close()]);
    await Promise.all([aClosed ? undefined : a?.close(), b?.close()]);
    await receiver.close();
  });

  it('never delivers one event twice, however the two relays and processors interleave', async () => {
    const merchant = await seedMerchant(a);
    for (const path of ['/one', '/two']) {
      expect((await a.api.as(merchant.key).post('/v1/webhook-endpoints', { url: receiver.url(path), events: [] })).status).toBe(201);
    }
    // Events committed from both apps at once, in many small transactions: both relays wake on every one.
    const events = 60;
    const eventIds = await Promise.all(
      Array.from({ length: events }, (_, i) =>
        (i % 2 ? a : b).app.get(DataSource).transaction((manager) =>
          recordEvent(manager, { accountId: merchant.accountId, type: 'reward.created', data: { id: `rw_${i}`, status: 'CREATED', valueCents: i + 1, remainingValueCents: i + 1, currency: 'USD', fx: null, externalId: null } }),
        ),
      ),
    );
    // Every request is sent under a lease and recorded after its answer: once every delivery is recorded as
    // SUCCEEDED with no lease left, every request either relay or processor sent has arrived (a duplicate too).
    await eventually(async () => {
      const [{ open }] = await a.app.get(DataSource).query(
        `SELECT count(*) FILTER (WHERE status <> 'SUCCEEDED' OR leased_until IS NOT NULL)::int + $2 - count(*)::int AS open
           FROM webhook_deliveries WHERE account_id = $1`,
        [merchant.accountId, events * 2],
      );
      return open === 0;
    }, 30_000);

    for (const path of ['/one', '/two']) {
      const ids = receiver.at(path).map((r) => r.json.id);
      expect(ids).toHaveLength(events);
      expect(new Set(ids)).toEqual(new Set(eventIds));
    }
    const [{ count }] = await a.app.get(DataSource).query(`SELECT count(*)::int AS count FROM webhook_deliveries WHERE account_id = $1`, [merchant.accountId]);
    expect(count).toBe(events * 2);
    const [{ undispatched }] = await a.app.get(DataSource).query(`SELECT count(*)::int AS undispatched FROM events WHERE dispatched_at IS NULL`);
    expect(undispatched).toBe(0);
  });

  it('deliveries keep flowing when one of the two workers stops', async () => {
    const merchant = await seedMerchant(b);
    expect((await b.api.as(merchant.key).post('/v1/webhook-endpoints', { url: receiver.url('/after-stop'), events: [] })).status).toBe(201);
    await aWorker.close();
    await a.close();
    aClosed = true;
    const res = await b.api.as(merchant.key).post('/v1/topups', { amountCents: 5000 });
    expect(res.status).toBe(201);
    const [request] = await eventually(async () => receiver.at('/after-stop').length > 0 && receiver.at('/after-stop'));
    expect(request.json.data.topupId).toBe(res.body.topup.id);
  });
});

/** `npm run start:api` (RUN_WORKERS=false) sends nothing itself; a worker started later catches up. */
describe('API-only process and a worker started later', () => {
  let api: TestApp;
  let worker: TestWorker | undefined;
  let receiver: WebhookReceiver;
  let env: Record<string, string>;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    // A second database: the count of undispatched events below is of this describe's alone.
    env = { ...(await isolatedDatabase()), WEBHOOK_RETRY_BASE_MS: '50' };
    api = await startTestApp({ env });
  });
  afterAll(async () => {
    await worker?.close();
    await api?.close();
    await receiver.close();
  });

  it('the API process fans out and delivers nothing; the worker then delivers the backlog, event and ping', async () => {
    const merchant = await seedMerchant(api);
    const created = await api.api.as(merchant.key).post('/v1/webhook-endpoints', { url: receiver.url('/later'), events: [] });
    const endpointId = created.body.webhookEndpoint.id;
    const topup = await api.api.as(merchant.key).post('/v1/topups', { amountCents: 2500 });
    expect(topup.status).toBe(201);
    const ping = await api.api.as(merchant.key).post(`/v1/webhook-endpoints/${endpointId}/test`);
    expect(ping.status).toBe(202);

    // Nothing to deliver with: the API process composes neither the relay nor the deliverer (the worker does, below).
    expect(() => api.app.get(WebhookRelay)).toThrow();
    expect(() => api.app.get(WebhookDeliverer)).toThrow();
    expect(receiver.received).toHaveLength(0);
    const [{ undispatched }] = await api.app.get(DataSource).query(`SELECT count(*)::int AS undispatched FROM events WHERE dispatched_at IS NULL`);
    expect(undispatched).toBe(1);
    expect((await api.api.as(merchant.readKey).get(`/v1/webhook-endpoints/${endpointId}/deliveries`)).body.deliveries).toHaveLength(1);

    worker = await startTestWorker(api);
    expect(worker.app.get(WebhookRelay)).toBeInstanceOf(WebhookRelay);
    await eventually(async () => receiver.at('/later').length === 2);
    expect(receiver.at('/later').map((r) => r.json.type).sort()).toEqual(['ping', 'wallet.credited']);
  });
});
