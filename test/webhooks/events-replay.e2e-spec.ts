import { DataSource } from 'typeorm';
import { Sweepers } from '@app/core';
import { ReplayPace, WEBHOOK_DNS_RESOLVER } from '@app/webhooks';
import { REPLAY_SWEEP } from '../../libs/webhooks/src/events/replay-pump';
import { FakeDns } from '../support/fake-dns';
import { eventually } from '../support/processes';
import { clockOverride, TestClock } from '../support/test-clock';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Small batches, far apart by the test's clock: a replay advances only when the test moves the clock. */
const pace: ReplayPace = { batchSize: 50, intervalMs: 60_000 };

/**
 * The events API and replays (docs/webhooks.md, Events API and Replay), end to end: the API, the
 * worker's relay, replay pump and deliverer, and a real receiver on 127.0.0.1.
 */
describe('events API and replay', () => {
  let t: TestApp;
  let worker: TestWorker;
  let receiver: WebhookReceiver;
  let db: DataSource;
  const clock = new TestClock();
  let n = 0;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await startTestApp({
      overrides: [{ provide: WEBHOOK_DNS_RESOLVER, useValue: new FakeDns() }, clockOverride(clock), { provide: ReplayPace, useValue: pace }],
    });
    worker = await startTestWorker(t);
    db = t.app.get(DataSource);
  });
  afterAll(async () => {
    await worker?.close();
    await t.close();
    await receiver.close();
  });
  afterEach(() => clock.reset());

  async function endpoint(merchant: SeededMerchant, events: string[] = []): Promise<{ id: string; path: string }> {
    const path = `/replay/${++n}`;
    const res = await t.api.as(merchant.key).post('/v1/webhook-endpoints', { url: receiver.url(path), events });
    expect(res.status).toBe(201);
    return { id: res.body.webhookEndpoint.id, path };
  }

  async function topUp(merchant: SeededMerchant, amountCents = 10_000): Promise<string> {
    const res = await t.api.as(merchant.key).post('/v1/topups', { amountCents });
    expect(res.status).toBe(201);
    return res.body.topup.id;
  }

  /** `count` wallet.credited events of the account, already fanned out, one a second going back from `ageSeconds` ago. */
  async function pastEvents(accountId: string, count: number, ageSeconds = 60): Promise<void> {
    await db.query(
      `INSERT INTO events (id, account_id, type, data, created_at, dispatched_at)
       SELECT 'evt_past' || lpad(i::text, 14, '0') || substr(md5(random()::text), 1, 4), $1, 'wallet.credited',
              jsonb_build_object('topupId', 'tu_past' || i, 'amountCents', i, 'currency', 'USD'),
              clock_timestamp() - make_interval(secs => $3 + i), clock_timestamp()
         FROM generate_series(1, $2) AS i`,
      [accountId, count, ageSeconds],
    );
  }

  const runPump = () => worker.app.get(Sweepers).run(REPLAY_SWEEP);

  describe('GET /v1/events', () => {
    let merchant: SeededMerchant;
    let other: SeededMerchant;
    let topups: string[];

    beforeAll(async () => {
      [merchant, other] = await Promise.all([seedMerchant(t), seedMerchant(t)]);
      topups = [];
      for (let i = 0; i < 3; i += 1) topups.push(await topUp(merchant, 1_000 + i));
      await topUp(other);
      // One from two days ago, one from 31 days ago (older than what the API shows).
      await db.query(
        `INSERT INTO events (id, account_id, type, data, created_at, dispatched_at) VALUES
           ('evt_twodaysago000000000000', $1, 'wallet.credited', '{"topupId": "tu_old", "amountCents": 5, "currency": "USD"}', clock_timestamp() - interval '2 days', clock_timestamp()),
           ('evt_thirtyonedays000000000', $1, 'wallet.credited', '{"topupId": "tu_older", "amountCents": 6, "currency": "USD"}', clock_timestamp() - interval '31 days', clock_timestamp())`,
        [merchant.accountId],
      );
    });

    it("lists the account's events of the last 30 days, newest first, with their data", async () => {
      const res = await t.api.as(merchant.readKey).get('/v1/events');
      expect(res.status).toBe(200);
      expect(res.body.hasMore).toBe(false);
      const credited = res.body.events.filter((e: { type: string }) => e.type === 'wallet.credited');
      expect(credited.map((e: any) => e.data.topupId)).toEqual([topups[2], topups[1], topups[0], 'tu_old']);
      expect(credited[0]).toEqual({
        id: expect.stringMatching(/^evt_/),
        type: 'wallet.credited',
        createdAt: expect.stringMatching(/Z$/),
        data: { topupId: topups[2], amountCents: 1_002, currency: 'USD' },
      });
      expect(res.text).not.toContain('evt_thirtyonedays');
    });

    it('pages with limit and starting_after, and filters by type and creation range', async () => {
      const api = t.api.as(merchant.readKey);
      const first = await api.get('/v1/events?type=wallet.credited&limit=2');
      expect(first.status).toBe(200);
      expect(first.body.events.map((e: any) => e.data.topupId)).toEqual([topups[2], topups[1]]);
      expect(first.body.hasMore).toBe(true);
      const second = await api.get(`/v1/events?type=wallet.credited&limit=2&starting_after=${first.body.events[1].id}`);
      expect(second.body.events.map((e: any) => e.data.topupId)).toEqual([topups[0], 'tu_old']);
      expect(second.body.hasMore).toBe(false);

      const lt = new Date(Date.now() - DAY_MS).toISOString();
      const ranged = await api.get(`/v1/events?created_lt=${lt}`);
      expect(ranged.body.events.map((e: any) => e.id)).toEqual(['evt_twodaysago000000000000']);
      const none = await api.get('/v1/events?type=card.issued');
      expect(none.body).toEqual({ events: [], hasMore: false });
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['type=reward.exploded', 'type'],
      ['created_gte=2026-11-02T00:00:00Z&created_lt=2026-11-01T00:00:00Z', 'created_gte'],
      ['created_gte=2024-01-01T00:00:00Z&created_lt=2026-11-01T00:00:00Z', 'created_gte'],
      ['starting_after=evt_nosuchevent', 'starting_after'],
    ])('refuses %s with a 400 naming %s', async (query, path) => {
      const res = await t.api.as(merchant.readKey).get(`/v1/events?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
    });

    it("reads one event; another account's, or one older than 30 days, is 404", async () => {
      const [latest] = (await t.api.as(merchant.readKey).get('/v1/events?limit=1')).body.events;
      const got = await t.api.as(merchant.readKey).get(`/v1/events/${latest.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual({ event: latest });
      expect((await t.api.as(other.readKey).get(`/v1/events/${latest.id}`)).status).toBe(404);
      expect((await t.api.as(merchant.readKey).get('/v1/events/evt_thirtyonedays000000000')).status).toBe(404);
      const theirs = (await t.api.as(other.readKey).get('/v1/events')).body.events;
      expect(theirs.map((e: any) => e.id)).not.toContain(latest.id);
    });
  });

  describe('POST /v1/webhook-endpoints/{id}/replay', () => {
    it('delivers the range again to that endpoint only, with the original ids and bodies, and audits the request', async () => {
      const merchant = await seedMerchant(t);
      const target = await endpoint(merchant, ['wallet.credited']);
      const bystander = await endpoint(merchant, []);
      const topupId = await topUp(merchant, 4_321);
      const [original] = await eventually(async () => receiver.at(target.path).length > 0 && receiver.at(target.path));
      await eventually(async () => receiver.at(bystander.path).length > 0);
      expect(original.json.data.topupId).toBe(topupId);

      const res = await t.api
        .as(merchant.key)
        .post(`/v1/webhook-endpoints/${target.id}/replay`, { createdGte: new Date(Date.now() - 3_600_000).toISOString(), createdLt: new Date(Date.now() + 60_000).toISOString() });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ replay: { id: expect.stringMatching(/^wrp_/), eventCount: 1, createdGte: expect.any(String), createdLt: expect.any(String) } });

      await runPump();
      const [, again] = await eventually(async () => receiver.at(target.path).length === 2 && receiver.at(target.path));
      expect(again.json.id).toBe(original.json.id);
      expect(again.headers['x-webhook-id']).toBe(original.json.id);
      expect(again.body).toBe(original.body);
      expect(receiver.at(bystander.path)).toHaveLength(1);

      const [entry] = await db.query(`SELECT action, target_id, metadata FROM audit_log WHERE account_id = $1 AND action = 'webhook_endpoint.replay_requested'`, [
        merchant.accountId,
      ]);
      expect(entry).toEqual({ action: 'webhook_endpoint.replay_requested', target_id: target.id, metadata: expect.objectContaining({ replayId: res.body.replay.id, eventCount: 1 }) });
    });

    it('refuses a reversed range, one older than 30 days or longer than 366 days (400), a paused endpoint (422), another account’s (404)', async () => {
      const [merchant, other] = await Promise.all([seedMerchant(t), seedMerchant(t)]);
      const target = await endpoint(merchant);
      const api = t.api.as(merchant.key);
      const at = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();
      for (const body of [
        { createdGte: at(DAY_MS), createdLt: at(2 * DAY_MS) },
        { createdGte: at(DAY_MS), createdLt: at(DAY_MS) },
        { createdGte: at(31 * DAY_MS), createdLt: at(DAY_MS) },
        { createdGte: at(400 * DAY_MS), createdLt: at(0) },
        { createdGte: 'yesterday' },
      ]) {
        const res = await api.post(`/v1/webhook-endpoints/${target.id}/replay`, body);
        expect(res.status).toBe(400);
        expect(res.body.issues[0].path).toBe('createdGte');
      }
      expect((await t.api.as(other.key).post(`/v1/webhook-endpoints/${target.id}/replay`, {})).status).toBe(404);
      expect((await t.api.as(merchant.readKey).post(`/v1/webhook-endpoints/${target.id}/replay`, {})).status).toBe(403);
      await api.patch(`/v1/webhook-endpoints/${target.id}`, { active: false });
      const paused = await api.post(`/v1/webhook-endpoints/${target.id}/replay`, {});
      expect(paused.status).toBe(422);
      const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM webhook_replays WHERE endpoint_id = $1`, [target.id]);
      expect(count).toBe(0);
    });

    it('paces a large replay: a live delivery to another endpoint goes out while it is pending, and it advances only as the clock does', async () => {
      clock.freeze();
      const [replaying, live] = await Promise.all([seedMerchant(t), seedMerchant(t)]);
      const target = await endpoint(replaying, ['wallet.credited']);
      const other = await endpoint(live, ['wallet.credited']);
      await pastEvents(replaying.accountId, 2_000);

      const res = await t.api.as(replaying.key).post(`/v1/webhook-endpoints/${target.id}/replay`, {});
      expect(res.status).toBe(202);
      expect(res.body.replay.eventCount).toBe(2_000);
      const enqueued = async () =>
        (await db.query(`SELECT enqueued_count, finished_at FROM webhook_replays WHERE id = $1`, [res.body.replay.id]))[0] as { enqueued_count: number; finished_at: Date | null };

      // A run of the pump already under way (its timer) may have looked before the replay was saved: pump until it is seen.
      await eventually(async () => {
        await runPump();
        return (await enqueued()).enqueued_count === pace.batchSize;
      });

      // A live event of another account goes out while 1,950 replayed events still wait.
      const topupId = await topUp(live, 777);
      const [delivered] = await eventually(async () => receiver.at(other.path).length > 0 && receiver.at(other.path));
      expect(delivered.json.data.topupId).toBe(topupId);
      expect(receiver.at(target.path).length).toBeLessThanOrEqual(pace.batchSize);
      expect(await enqueued()).toEqual({ enqueued_count: pace.batchSize, finished_at: null });

      // The first batch delivered, the next waits for the clock, not for the worker's timers.
      await eventually(async () => receiver.at(target.path).length === pace.batchSize);
      await runPump();
      expect((await enqueued()).enqueued_count).toBe(pace.batchSize);
      clock.advance(pace.intervalMs);
      await eventually(async () => {
        await runPump();
        return (await enqueued()).enqueued_count === 2 * pace.batchSize;
      });
      await eventually(async () => receiver.at(target.path).length === 2 * pace.batchSize);
      // Oldest first, each event once, with its own id.
      const ids = receiver.at(target.path).map((r) => r.json.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.every((id: string) => id.startsWith('evt_past'))).toBe(true);
    });
  });
});
