import { DataSource } from 'typeorm';
import { adminDataSource } from '../support/database-admin';
import { eventually } from '../support/processes';
import { choiceReward, fund } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * A receiver that fails for a while and then recovers gets its backlog at once, not after each
 * delivery's own back-off (ten minutes for the first retry here): the first success brings the
 * endpoint's backed-off deliveries forward (docs/webhooks.md, Retries). A Retry-After the receiver
 * asked for still holds.
 */
describe('backlog of a recovered receiver', () => {
  const receiver = new WebhookReceiver();
  let t: TestApp;
  let worker: TestWorker;
  let merchant: SeededMerchant;
  let db: DataSource;
  // Sees every session's statement in pg_stat_activity; the runtime role sees only its own login's.
  let superuser: DataSource;

  beforeAll(async () => {
    await receiver.start();
    t = await startTestApp({ env: { WEBHOOK_RETRY_BASE_MS: '600000', WEBHOOK_TIMEOUT_MS: '5000' } });
    worker = await startTestWorker(t);
    db = t.app.get(DataSource);
    superuser = await adminDataSource(t.config.databaseUrl, { superuser: true });
    merchant = await seedMerchant(t);
    await fund(t, merchant, 100_000);
  });
  afterAll(async () => {
    await superuser?.destroy();
    await worker?.close();
    await t?.close();
    await receiver.close();
  });

  const deliveriesOf = (endpointId: string) =>
    db.query(
      `SELECT d.id, d.status, d.attempts, d.response_status, d.next_attempt_at, (r.data->>'id') AS reward_id
         FROM webhook_deliveries d JOIN events r ON r.id = d.event_id
        WHERE d.endpoint_id = $1 ORDER BY d.created_at`,
      [endpointId],
    ) as Promise<{ id: string; status: string; attempts: number; response_status: number | null; next_attempt_at: Date | null; reward_id: string }[]>;

  it('delivers the backed-off deliveries as soon as one succeeds again, and still waits out a Retry-After', async () => {
    const hook = await t.api.as(merchant.key).post('/v1/webhook-endpoints', { url: receiver.url('/recovers'), events: ['reward.created'] });
    expect(hook.status).toBe(201);
    const endpointId = hook.body.webhookEndpoint.id;

    // Down: the first event is answered 503 with Retry-After (an hour), the others 500.
    let requests = 0;
    receiver.respond('/recovers', (_request, res) => {
      requests += 1;
      if (requests === 1) res.writeHead(503, { 'Retry-After': '3600' }).end();
      else res.writeHead(500).end();
    });
    for (let i = 0; i < 5; i++) expect((await t.api.as(merchant.key).post('/v1/rewards', choiceReward(1_000))).status).toBe(201);
    const failed = await eventually(async () => {
      const rows = await deliveriesOf(endpointId);
      return rows.length === 5 && rows.every((r) => r.attempts === 1 && r.response_status !== null && r.next_attempt_at) ? rows : undefined;
    }, 30_000, 200);
    // Each waits its back-off: ten minutes or more.
    for (const row of failed) expect(row.next_attempt_at!.getTime()).toBeGreaterThan(Date.now() + 5 * 60_000);
    const askedToWait = failed.find((r) => r.response_status === 503)!;
    expect(askedToWait).toBeDefined();

    // Up again: the next event's delivery succeeds, and the backlog follows it within seconds.
    receiver.respond('/recovers', 200);
    const fresh = await t.api.as(merchant.key).post('/v1/rewards', choiceReward(1_000));
    expect(fresh.status).toBe(201);
    const delivered = await eventually(async () => {
      const rows = await deliveriesOf(endpointId);
      return rows.filter((r) => r.status === 'SUCCEEDED').length === 5 ? rows : undefined;
    }, 30_000, 200);

    expect(delivered.find((r) => r.reward_id === fresh.body.reward.id)).toMatchObject({ status: 'SUCCEEDED', attempts: 1 });
    for (const row of delivered.filter((r) => r.id !== askedToWait.id && r.reward_id !== fresh.body.reward.id)) {
      expect(row).toMatchObject({ status: 'SUCCEEDED', attempts: 2 });
    }
    // The receiver asked for an hour: that delivery is not brought before it.
    const waiting = delivered.find((r) => r.id === askedToWait.id)!;
    expect(waiting).toMatchObject({ status: 'PENDING', attempts: 1 });
    expect(waiting.next_attempt_at!.getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);
  }, 120_000);

  it('a failure recorded while a success brings the backlog forward is brought forward with it, not left to its back-off', async () => {
    const hook = await t.api.as(merchant.key).post('/v1/webhook-endpoints', { url: receiver.url('/race'), events: ['reward.created'] });
    const endpointId = hook.body.webhookEndpoint.id;
    // The endpoint is failing, and one attempt to it (leased) is about to be recorded as failed.
    await db.query(`UPDATE webhook_endpoints SET failing_since = clock_timestamp() WHERE id = $1`, [endpointId]);
    const body = JSON.stringify({ id: 'evt_race', type: 'wallet.credited', createdAt: new Date().toISOString(), data: { topupId: 'tu_race', amountCents: 1, currency: 'USD' } });
    await db.query(
      `INSERT INTO webhook_deliveries (id, endpoint_id, account_id, event_id, event_type, payload, attempts, next_attempt_at, leased_until, last_attempt_at)
       VALUES ('whd_race', $1, $2, 'evt_race', 'wallet.credited', $3::json, 1, clock_timestamp() + interval '1 hour', clock_timestamp() + interval '1 hour', clock_timestamp())`,
      [endpointId, merchant.accountId, body],
    );
    // The failure's record, as the recorder writes it, held open: its back-off of an hour, and the endpoint's flag.
    const failure = db.createQueryRunner();
    await failure.connect();
    try {
      await failure.startTransaction();
      await failure.query(`UPDATE webhook_deliveries SET leased_until = NULL, next_attempt_at = clock_timestamp() + interval '1 hour', last_error = 'HTTP 500' WHERE id = 'whd_race'`);
      await failure.query(`UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, clock_timestamp()) WHERE id = $1`, [endpointId]);
      // Meanwhile a fresh event succeeds, and its recovery waits for the endpoint's row.
      expect((await t.api.as(merchant.key).post('/v1/rewards', choiceReward(1_000))).status).toBe(201);
      await eventually(async () => {
        const waiting = await superuser.query(
          `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%SET failing_since = NULL%'`,
        );
        return waiting.length > 0;
      }, 20_000, 50);
      await failure.commitTransaction();
    } finally {
      await failure.release();
    }
    // The recovery saw the failure: the delivery goes out now, not in an hour.
    await eventually(async () => receiver.at('/race').some((r) => r.json?.id === 'evt_race'), 10_000, 100);
  }, 60_000);
});
