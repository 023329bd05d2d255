import { DataSource } from 'typeorm';
import { recordEvent } from '@app/core';
import { MAX_SOCKETS_PER_ENDPOINT, WebhookDeliverer, WebhookDeliveriesService } from '@app/webhooks';
import { DeliveryLeases } from '../../libs/webhooks/src/delivery/delivery-leases';
import { DeliverySweep } from '../../libs/webhooks/src/delivery/delivery-sweep';
import { eventually } from '../support/processes';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * Deliveries are claimed and recorded in batches and sent over kept-alive connections, one pool
 * per endpoint: what a receiver sees of that, and what survives a worker dying mid-batch.
 */
describe('webhook delivery in batches', () => {
  let t: TestApp;
  let worker: TestWorker;
  let receiver: WebhookReceiver;
  let db: DataSource;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await startTestApp({ env: { WEBHOOK_RETRY_BASE_MS: '50' } });
    worker = await startTestWorker(t);
    db = t.app.get(DataSource);
  });
  afterAll(async () => {
    await worker?.close();
    await t.close();
    await receiver.close();
  });

  /**
   * The attempts of each delivery of the endpoint, as the API shows them (read through the service the
   * API calls: hundreds of GETs would meet the rate limit): delivery id → attempts.
   */
  async function attemptsShown(merchant: SeededMerchant, endpointId: string): Promise<Map<string, { attempt: number; succeeded: boolean }[]>> {
    const ids = ((await db.query(`SELECT id FROM webhook_deliveries WHERE endpoint_id = $1`, [endpointId])) as { id: string }[]).map((r) => r.id);
    const service = t.app.get(WebhookDeliveriesService);
    const shown = new Map<string, { attempt: number; succeeded: boolean }[]>();
    for (const id of ids) {
      const { attempts } = await service.get(merchant.accountId, endpointId, id);
      shown.set(id, attempts.map(({ attempt, succeeded }) => ({ attempt, succeeded })));
    }
    return shown;
  }

  async function endpoint(merchant: SeededMerchant, path: string): Promise<string> {
    const res = await t.api.as(merchant.key).post('/v1/webhook-endpoints', { url: receiver.url(path), events: [] });
    expect(res.status).toBe(201);
    return res.body.webhookEndpoint.id;
  }

  it('a burst of events to one endpoint arrives exactly once each, over a bounded set of reused connections', async () => {
    const merchant = await seedMerchant(t);
    const endpointId = await endpoint(merchant, '/burst');
    // A receiver that takes a moment to answer, so that many requests are under way at once.
    receiver.respond('/burst', (_r, res) => setTimeout(() => res.writeHead(200).end(), 20));
    const connectionsBefore = receiver.connections;
    const count = 300;
    const eventIds = await db.transaction(async (manager) => {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        ids.push(await recordEvent(manager, { accountId: merchant.accountId, type: 'reward.created', data: { id: `rw_${i}`, status: 'CREATED', valueCents: i + 1, remainingValueCents: i + 1, currency: 'USD', fx: null, externalId: null } }));
      }
      return ids;
    });

    await eventually(async () => receiver.at('/burst').length >= count, 30_000);
    // Recorded (the record is written a moment after the answer).
    await eventually(async () => {
      const [{ pending }] = await db.query(`SELECT count(*) FILTER (WHERE status <> 'SUCCEEDED')::int AS pending FROM webhook_deliveries WHERE endpoint_id = $1`, [endpointId]);
      return pending === 0;
    });
    const received = receiver.at('/burst');
    expect(received).toHaveLength(count);
    expect(new Set(received.map((r) => r.json.id))).toEqual(new Set(eventIds));

    // Connections are reused, and never more than the per-endpoint cap are open at once.
    const sockets = new Set(received.map((r) => r.socket));
    expect(sockets.size).toBeLessThanOrEqual(MAX_SOCKETS_PER_ENDPOINT);
    expect(receiver.connections - connectionsBefore).toBeLessThanOrEqual(MAX_SOCKETS_PER_ENDPOINT);
    expect(receiver.maxOpen).toBeLessThanOrEqual(MAX_SOCKETS_PER_ENDPOINT);

    // Every attempt is on record, once: each delivery shows its one successful first attempt.
    const shown = await attemptsShown(merchant, endpointId);
    expect(shown.size).toBe(count);
    expect([...shown.values()].every((attempts) => attempts.length === 1 && attempts[0].attempt === 1 && attempts[0].succeeded)).toBe(true);
  });

  it('deliveries claimed by a worker that died before sending them are sent once their lease ends, each once', async () => {
    const merchant = await seedMerchant(t);
    const endpointId = await endpoint(merchant, '/crashed');
    // Deliveries due in a moment: nothing has kicked the deliverer for them, and the sweep waits longer.
    const ids = Array.from({ length: 5 }, (_, i) => `whd_crash${i}`);
    for (const [i, id] of ids.entries()) {
      const body = JSON.stringify({ id: `evt_crash${i}`, type: 'wallet.credited', createdAt: new Date().toISOString(), data: { topupId: `tu_${i}`, amountCents: 1, currency: 'USD' } });
      await db.query(
        `INSERT INTO webhook_deliveries (id, endpoint_id, account_id, event_id, event_type, payload, next_attempt_at)
         VALUES ($1, $2, $3, $4, 'wallet.credited', $5::json, clock_timestamp() + interval '500 milliseconds')`,
        [id, endpointId, merchant.accountId, `evt_crash${i}`, body],
      );
    }
    // The dying worker: it claims the batch, then sends nothing and records nothing.
    const claimed = await worker.app.get(DeliveryLeases).claim(endpointId, 10);
    expect(claimed.map((d) => d.id).sort()).toEqual(ids);
    const leased = (await db.query(`SELECT attempts, (leased_until IS NOT NULL AND next_attempt_at > clock_timestamp() + interval '5 seconds') AS leased FROM webhook_deliveries WHERE endpoint_id = $1`, [endpointId])) as { attempts: number; leased: boolean }[];
    expect(leased.every((d) => d.attempts === 1 && d.leased)).toBe(true);

    // While leased, nobody sends them, even when asked to: the claim that the kick runs (it resolves once
    // the claim is done) and the sweep take none of them (a claim would count an attempt).
    await worker.app.get(WebhookDeliverer).kick(endpointId);
    await worker.app.get(DeliverySweep).sweep();
    const untouched = (await db.query(`SELECT attempts FROM webhook_deliveries WHERE endpoint_id = $1`, [endpointId])) as { attempts: number }[];
    expect(untouched.map((d) => d.attempts)).toEqual(ids.map(() => 1));
    expect(receiver.at('/crashed')).toHaveLength(0);

    // The lease runs out (moved into the past here rather than waited for): the sweep finds them (run
    // here rather than waited for on its 5-s interval).
    await db.query(`UPDATE webhook_deliveries SET next_attempt_at = clock_timestamp() - interval '1 minute', leased_until = clock_timestamp() - interval '1 minute' WHERE endpoint_id = $1`, [endpointId]);
    await worker.app.get(DeliverySweep).sweep();
    await eventually(async () => receiver.at('/crashed').length >= ids.length, 20_000);
    const rows = await eventually(async () => {
      const list = (await db.query(`SELECT id, status, attempts FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY id`, [endpointId])) as { id: string; status: string; attempts: number }[];
      return list.every((d) => d.status === 'SUCCEEDED') && list;
    });
    // Each at attempt 2: no third attempt was ever claimed, so no duplicate is still on its way.
    expect(rows).toEqual(ids.map((id) => ({ id, status: 'SUCCEEDED', attempts: 2 })));
    expect(receiver.at('/crashed').map((r) => r.json.id).sort()).toEqual(ids.map((_, i) => `evt_crash${i}`));
    // The lost attempt left no record; the one that reached the receiver is attempt 2.
    const shown = await attemptsShown(merchant, endpointId);
    expect([...shown.keys()].sort()).toEqual(ids);
    expect([...shown.values()]).toEqual(ids.map(() => [{ attempt: 2, succeeded: true }]));
  });

  it('a fresh event waits behind the backlog of its endpoint: deliveries already due go out first', async () => {
    const merchant = await seedMerchant(t);
    const endpointId = await endpoint(merchant, '/backlog');
    // The receiver holds its answers until told, so the worker keeps a backlog it cannot send yet.
    const held: { answer: () => void }[] = [];
    let holding = true;
    receiver.respond('/backlog', (_r, res) => {
      const answer = () => void res.writeHead(200).end();
      if (holding) held.push({ answer });
      else answer();
    });
    const backlog = 150;
    await db.query(
      `INSERT INTO webhook_deliveries (id, endpoint_id, account_id, event_id, event_type, payload, next_attempt_at)
       SELECT 'whd_backlog' || i, $1, $2, 'evt_backlog' || i, 'wallet.credited',
              json_build_object('id', 'evt_backlog' || i, 'type', 'wallet.credited', 'createdAt', now(),
                                'data', json_build_object('topupId', 'tu_' || i, 'amountCents', 1, 'currency', 'USD')),
              clock_timestamp() - interval '1 second'
         FROM generate_series(1, $3::int) AS i`,
      [endpointId, merchant.accountId, backlog],
    );
    void worker.app.get(WebhookDeliverer).kick(endpointId);
    // Every connection of the endpoint is busy; the worker holds more attempts, waiting for one; the rest is due in the table.
    await eventually(async () => held.length === MAX_SOCKETS_PER_ENDPOINT);
    // Two answers free a little room, too little for the worker to claim more of the backlog.
    held.splice(0, 2).forEach((h) => h.answer());
    await eventually(async () => {
      const [{ done }] = await db.query(`SELECT count(*)::int AS done FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'SUCCEEDED'`, [endpointId]);
      return done === 2;
    });

    const fresh = await db.transaction((manager) =>
      recordEvent(manager, { accountId: merchant.accountId, type: 'wallet.credited', data: { topupId: 'tu_fresh', amountCents: 1, currency: 'USD' } }),
    );
    // Created due, behind the backlog in the table, rather than leased to the worker ahead of it.
    const created = await eventually(async () => {
      const rows = await db.query(`SELECT attempts, leased_until FROM webhook_deliveries WHERE endpoint_id = $1 AND event_id = $2`, [endpointId, fresh]);
      return rows.length === 1 && rows[0];
    });
    expect(created).toEqual({ attempts: 0, leased_until: null });
    holding = false;
    held.splice(0).forEach((h) => h.answer());
    await eventually(async () => receiver.at('/backlog').length >= backlog + 1, 30_000);

    // Sent roughly in order of when they became due (a claimed batch goes out over parallel connections, in no
    // set order); had the fresh one jumped the queue, it would have gone out among the first half.
    const order = receiver.at('/backlog').map((r) => r.json.id);
    expect(new Set(order).size).toBe(backlog + 1);
    expect(order.indexOf(fresh)).toBeGreaterThan(backlog / 2);
  });

  it('a receiver failing half the requests of a burst gets each failed one retried until it answers; none is lost', async () => {
    const merchant = await seedMerchant(t);
    await endpoint(merchant, '/flaky');
    // Every other request fails.
    let n = 0;
    receiver.respond('/flaky', (_r, res) => void res.writeHead(n++ % 2 ? 200 : 500).end());
    const count = 50;
    const eventIds = await db.transaction(async (manager) => {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) ids.push(await recordEvent(manager, { accountId: merchant.accountId, type: 'reward.created', data: { id: `rw_f${i}`, status: 'CREATED', valueCents: i + 1, remainingValueCents: i + 1, currency: 'USD', fx: null, externalId: null } }));
      return ids;
    });
    const succeeded = await eventually(async () => {
      const rows = (await db.query(
        `SELECT d.event_id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.account_id = $1 AND d.status = 'SUCCEEDED'`,
        [merchant.accountId],
      )) as { event_id: string }[];
      return rows.length === count && rows;
    }, 30_000);
    expect(new Set(succeeded.map((r) => r.event_id))).toEqual(new Set(eventIds));
    expect(new Set(receiver.at('/flaky').map((r) => r.json.id))).toEqual(new Set(eventIds));
  });
});
