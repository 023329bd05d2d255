import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { recordEvent } from '@app/core';
import { WEBHOOK_DNS_RESOLVER, WebhookDeliverer } from '@app/webhooks';
import { DeliverySweep } from '../../libs/webhooks/src/delivery/delivery-sweep';
import { FakeDns } from '../support/fake-dns';
import { eventually } from '../support/processes';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { verifyWebhook, WebhookReceiver } from '../support/webhook-receiver';

/**
 * Deliveries end to end: a real producer (fake top-up), the relay, the queue, signed POSTs to a
 * real receiver on 127.0.0.1 that checks signatures itself. Retries are fast here
 * (WEBHOOK_RETRY_BASE_MS=50) so the schedule is observable in a test.
 */
describe('webhook delivery', () => {
  let t: TestApp;
  let worker: TestWorker;
  let receiver: WebhookReceiver;
  const dns = new FakeDns();
  let n = 0;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await startTestApp({
      env: { WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_MAX_ATTEMPTS: '3', WEBHOOK_TIMEOUT_MS: '1000' },
      overrides: [{ provide: WEBHOOK_DNS_RESOLVER, useValue: dns }],
    });
    worker = await startTestWorker(t);
  });
  afterAll(async () => {
    await worker?.close();
    await t.close();
    await receiver.close();
  });

  /** A merchant with one endpoint at a fresh receiver path. */
  async function merchantWithEndpoint(events: string[] = []): Promise<{ merchant: SeededMerchant; id: string; secret: string; path: string }> {
    const merchant = await seedMerchant(t);
    const path = `/hook/${++n}`;
    const res = await t.api.as(merchant.key).post('/v1/webhook-endpoints', { url: receiver.url(path), events });
    expect(res.status).toBe(201);
    return { merchant, id: res.body.webhookEndpoint.id, secret: res.body.secret, path };
  }

  async function topUp(merchant: SeededMerchant, amountCents = 10_000): Promise<string> {
    const res = await t.api.as(merchant.key).post('/v1/topups', { amountCents });
    expect(res.status).toBe(201);
    return res.body.topup.id;
  }

  async function deliveries(merchant: SeededMerchant, endpointId: string) {
    const res = await t.api.as(merchant.readKey).get(`/v1/webhook-endpoints/${endpointId}/deliveries`);
    expect(res.status).toBe(200);
    return res.body.deliveries as any[];
  }

  /**
   * Runs what could send a delivery now: a claim for the endpoint (the kick resolves once it is done)
   * and the sweep. A delivery it took would count an attempt at once.
   */
  async function tryToSend(endpointId: string): Promise<void> {
    await worker.app.get(WebhookDeliverer).kick(endpointId);
    await worker.app.get(DeliverySweep).sweep();
  }

  it('a fake top-up reaches a subscribed endpoint as a signed wallet.credited event with the exact payload', async () => {
    const { merchant, id, secret, path } = await merchantWithEndpoint(['wallet.credited']);
    const topupId = await topUp(merchant, 12_345);

    const [request] = await eventually(async () => receiver.at(path).length > 0 && receiver.at(path));
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toMatch(/^RewardsWebhooks\//);
    expect(verifyWebhook(request, [secret])).toEqual([true]);
    expect(verifyWebhook(request, ['whsec_someoneelse'])).toEqual([false]);
    expect(request.json).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'wallet.credited',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: { topupId, amountCents: 12_345, currency: 'USD' },
    });
    expect(Object.keys(request.json)).toEqual(['id', 'type', 'createdAt', 'data']);
    expect(request.headers['x-webhook-id']).toBe(request.json.id);
    expect(Math.abs(Number(request.headers['x-webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);

    const [delivery] = await eventually(async () => {
      const list = await deliveries(merchant, id);
      return list[0]?.status === 'SUCCEEDED' && list;
    });
    expect(delivery).toEqual({
      id: expect.stringMatching(/^whd_/),
      eventId: request.json.id,
      eventType: 'wallet.credited',
      status: 'SUCCEEDED',
      attempts: 1,
      responseStatus: 200,
      lastError: null,
      payload: request.json,
      createdAt: expect.any(String),
      lastAttemptAt: expect.any(String),
      nextAttemptAt: null,
    });
    // The record holds the bytes that were signed.
    expect(JSON.stringify(delivery.payload)).toBe(request.body);
  });

  it('an endpoint subscribed to other events gets nothing; a paused one gets nothing until reactivated, then everything', async () => {
    const merchant = await seedMerchant(t);
    const api = t.api.as(merchant.key);
    const make = async (path: string, events: string[]) =>
      (await api.post('/v1/webhook-endpoints', { url: receiver.url(path), events })).body.webhookEndpoint.id as string;
    const base = `/hook/${++n}`;
    const unsubscribed = await make(`${base}/rewards-only`, ['reward.created']);
    const paused = await make(`${base}/paused`, []);
    const all = await make(`${base}/all`, []);
    await api.patch(`/v1/webhook-endpoints/${paused}`, { active: false });

    await topUp(merchant);
    await eventually(async () => receiver.at(`${base}/all`).length === 1);
    // The fan-out that sent it made the event's deliveries to all three endpoints in one commit: none for
    // the unsubscribed one, and the paused one's parked, which nothing sends, even when asked to.
    expect(await deliveries(merchant, unsubscribed)).toEqual([]);
    expect(await deliveries(merchant, all)).toHaveLength(1);
    // Parked, not dropped: pausing never loses an event.
    const [parked] = await deliveries(merchant, paused);
    expect(parked).toMatchObject({ status: 'PENDING', attempts: 0, nextAttemptAt: null });
    await tryToSend(paused);
    await tryToSend(unsubscribed);
    expect(await deliveries(merchant, paused)).toEqual([parked]);
    expect(receiver.at(`${base}/rewards-only`)).toHaveLength(0);
    expect(receiver.at(`${base}/paused`)).toHaveLength(0);

    await api.patch(`/v1/webhook-endpoints/${paused}`, { active: true });
    const [request] = await eventually(async () => receiver.at(`${base}/paused`).length === 1 && receiver.at(`${base}/paused`));
    expect(request.json.id).toBe(parked.eventId);
  });

  it('retries after a 500 with the same event id and body, then succeeds', async () => {
    const { merchant, id, secret, path } = await merchantWithEndpoint();
    receiver.respondInSequence(path, [500, 500]);
    await topUp(merchant);

    const requests = await eventually(async () => receiver.at(path).length >= 3 && receiver.at(path));
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((r) => r.json.id)).size).toBe(1);
    expect(new Set(requests.map((r) => r.headers['x-webhook-id'])).size).toBe(1);
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
    for (const r of requests) expect(verifyWebhook(r, [secret])).toEqual([true]);
    // Backoff grows: the second gap is at least the doubled base.
    expect(requests[1].at - requests[0].at).toBeGreaterThanOrEqual(45);
    expect(requests[2].at - requests[1].at).toBeGreaterThanOrEqual(95);

    const [delivery] = await eventually(async () => {
      const list = await deliveries(merchant, id);
      return list[0]?.status === 'SUCCEEDED' && list;
    });
    expect(delivery).toMatchObject({ status: 'SUCCEEDED', attempts: 3, responseStatus: 200, lastError: null });
    const detail = await t.api.as(merchant.readKey).get(`/v1/webhook-endpoints/${id}/deliveries/${delivery.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.delivery).toEqual(delivery);
    const attempt = (n: number, status: number, succeeded: boolean, error: string | null) =>
      ({ attempt: n, succeeded, responseStatus: status, error, startedAt: expect.any(String), durationMs: expect.any(Number) });
    expect(detail.body.attempts).toEqual([attempt(1, 500, false, 'HTTP 500'), attempt(2, 500, false, 'HTTP 500'), attempt(3, 200, true, null)]);
  });

  it('a manual retry of a delivery that succeeded sends it again, and its history keeps both successes', async () => {
    const { merchant, id, path } = await merchantWithEndpoint();
    await topUp(merchant);
    const [first] = await eventually(async () => {
      const list = await deliveries(merchant, id);
      return list[0]?.status === 'SUCCEEDED' && list;
    });
    const api = t.api.as(merchant.key);
    const shown = async () => (await api.get(`/v1/webhook-endpoints/${id}/deliveries/${first.id}`)).body.attempts;
    const once = await shown();
    expect(once).toEqual([{ attempt: 1, succeeded: true, responseStatus: 200, error: null, startedAt: expect.any(String), durationMs: expect.any(Number) }]);
    expect(first.lastAttemptAt).toBe(once[0].startedAt);

    receiver.respondInSequence(path, [201]);
    expect((await api.post(`/v1/webhook-endpoints/${id}/deliveries/${first.id}/retry`)).status).toBe(202);
    await eventually(async () => {
      const list = await deliveries(merchant, id);
      return list[0]?.status === 'SUCCEEDED' && list[0].attempts === 2;
    });
    expect(receiver.at(path).map((r) => r.json.id)).toEqual([first.eventId, first.eventId]);
    expect(await shown()).toEqual([once[0], { attempt: 2, succeeded: true, responseStatus: 201, error: null, startedAt: expect.any(String), durationMs: expect.any(Number) }]);
  });

  it('a 429 or 503 with Retry-After is retried no sooner than asked', async () => {
    const { merchant, path } = await merchantWithEndpoint();
    // One second (the least Retry-After can ask for): 20 times the retry base of this suite.
    receiver.respondInSequence(path, [{ status: 503, headers: { 'Retry-After': '1' } }]);
    await topUp(merchant);
    const requests = await eventually(async () => receiver.at(path).length >= 2 && receiver.at(path), 20_000);
    expect(requests[1].at - requests[0].at).toBeGreaterThanOrEqual(1000);
    expect(requests[1].json.id).toBe(requests[0].json.id);
  });

  it('410 Gone pauses the endpoint; it then receives nothing until reactivated, and the waiting delivery resumes', async () => {
    const { merchant, id, path } = await merchantWithEndpoint();
    receiver.respondInSequence(path, [410]);
    await topUp(merchant);
    const api = t.api.as(merchant.key);

    const endpoint = await eventually(async () => {
      const res = await api.get(`/v1/webhook-endpoints/${id}`);
      return res.body.webhookEndpoint.active === false && res.body.webhookEndpoint;
    });
    expect(endpoint.pausedReason).toMatch(/410/);
    const [parked] = await deliveries(merchant, id);
    expect(parked).toMatchObject({ status: 'PENDING', attempts: 1, responseStatus: 410, nextAttemptAt: null });

    await topUp(merchant); // while paused: parked for this endpoint, not sent
    const waiting = await eventually(async () => {
      const list = await deliveries(merchant, id);
      return list.length === 2 && list;
    });
    expect(waiting.every((d: any) => d.status === 'PENDING' && d.nextAttemptAt === null)).toBe(true);
    // Nothing sends a parked delivery, even when asked to.
    await tryToSend(id);
    expect(await deliveries(merchant, id)).toEqual(waiting);
    expect(receiver.at(path)).toHaveLength(1);

    expect((await api.patch(`/v1/webhook-endpoints/${id}`, { active: true })).body.webhookEndpoint).toMatchObject({ active: true, pausedReason: null });
    const requests = await eventually(async () => receiver.at(path).length >= 3 && receiver.at(path));
    expect(requests.slice(1).map((r: any) => r.json.id).sort()).toEqual(waiting.map((d: any) => d.eventId).sort());
    await eventually(async () => (await deliveries(merchant, id)).every((d: any) => d.status === 'SUCCEEDED'));
  });

  it('after WEBHOOK_MAX_ATTEMPTS failures the delivery is FAILED; a manual retry then delivers it', async () => {
    const { merchant, id, secret, path } = await merchantWithEndpoint();
    receiver.respond(path, 500);
    await topUp(merchant);
    const [failed] = await eventually(async () => {
      const list = await deliveries(merchant, id);
      return list[0]?.status === 'FAILED' && list;
    });
    expect(failed).toMatchObject({ attempts: 3, responseStatus: 500, lastError: 'HTTP 500', nextAttemptAt: null });
    expect(receiver.at(path)).toHaveLength(3);

    receiver.respond(path, 200);
    const retried = await t.api.as(merchant.key).post(`/v1/webhook-endpoints/${id}/deliveries/${failed.id}/retry`);
    expect(retried.status).toBe(202);
    expect(retried.body.delivery).toMatchObject({ id: failed.id, status: 'PENDING' });
    const requests = await eventually(async () => receiver.at(path).length === 4 && receiver.at(path));
    expect(requests[3].json.id).toBe(failed.eventId);
    expect(verifyWebhook(requests[3], [secret])).toEqual([true]);
    const [done] = await eventually(async () => {
      const list = await deliveries(merchant, id);
      return list[0]?.status === 'SUCCEEDED' && list;
    });
    expect(done).toMatchObject({ attempts: 4, responseStatus: 200, lastError: null });

    const again = await t.api.as(merchant.key).post(`/v1/webhook-endpoints/${id}/deliveries/whd_doesnotexist/retry`);
    expect(again.status).toBe(404);
  });

  it('a retry of a pending delivery is refused: its next attempt is already scheduled', async () => {
    const { merchant, id, path } = await merchantWithEndpoint();
    receiver.respond(path, (_r, res) => setTimeout(() => res.writeHead(500).end(), 800));
    await topUp(merchant);
    const [pending] = await eventually(async () => {
      const list = await deliveries(merchant, id);
      return list[0]?.status === 'PENDING' && list;
    });
    const res = await t.api.as(merchant.key).post(`/v1/webhook-endpoints/${id}/deliveries/${pending.id}/retry`);
    expect(res.status).toBe(422);
    receiver.respond(path, 200);
  });

  it('a receiver that does not answer in WEBHOOK_TIMEOUT_MS is a failed attempt', async () => {
    const { merchant, id, path } = await merchantWithEndpoint();
    let first = true;
    receiver.respond(path, (_r, res) => {
      if (first) {
        first = false;
        setTimeout(() => res.writeHead(200).end(), 2500);
      } else res.writeHead(200).end();
    });
    await topUp(merchant);
    const [delivery] = await eventually(async () => {
      const list = await deliveries(merchant, id);
      return list[0]?.status === 'SUCCEEDED' && list;
    });
    expect(delivery.attempts).toBe(2);
    const detail = await t.api.as(merchant.readKey).get(`/v1/webhook-endpoints/${id}/deliveries/${delivery.id}`);
    expect(detail.body.attempts[0]).toMatchObject({ succeeded: false, error: 'timed out after 1000 ms', responseStatus: null });
    expect(detail.body.attempts[0].durationMs).toBeGreaterThanOrEqual(1000);
    expect(detail.body.attempts[0].durationMs).toBeLessThan(2000);
  });

  it('a redirect is not followed: it is a failed attempt', async () => {
    const { merchant, id, path } = await merchantWithEndpoint();
    receiver.respond(path, (_r, res) => void res.writeHead(302, { Location: receiver.url(`${path}/elsewhere`) }).end());
    await topUp(merchant);
    const [delivery] = await eventually(async () => {
      const list = await deliveries(merchant, id);
      return list[0]?.status === 'FAILED' && list;
    });
    expect(delivery).toMatchObject({ responseStatus: 302, lastError: expect.stringContaining('redirect') });
    expect(receiver.at(`${path}/elsewhere`)).toHaveLength(0);
  });

  it('a refused connection is a failed attempt with a short error', async () => {
    const merchant = await seedMerchant(t);
    const res = await t.api.as(merchant.key).post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:1/nothing', events: [] });
    await topUp(merchant);
    const [delivery] = await eventually(async () => {
      const list = await deliveries(merchant, res.body.webhookEndpoint.id);
      return list[0]?.attempts >= 1 && list[0].lastError && list; // lastError is written when the attempt has finished
    });
    expect(delivery.responseStatus).toBeNull();
    expect(delivery.lastError).toMatch(/ECONNREFUSED/);
  });

  it('rotation with a grace period: deliveries carry both signatures and each verifies', async () => {
    const { merchant, id, secret: oldSecret, path } = await merchantWithEndpoint();
    const rotated = await t.api.as(merchant.key).post(`/v1/webhook-endpoints/${id}/rotate-secret`, { keepPreviousForSeconds: 600 });
    const newSecret = rotated.body.secret;
    await topUp(merchant);
    const [request] = await eventually(async () => receiver.at(path).length > 0 && receiver.at(path));
    expect(String(request.headers['x-webhook-signature'])).toMatch(/^v1=[0-9a-f]{64} v1=[0-9a-f]{64}$/);
    expect(verifyWebhook(request, [newSecret, oldSecret])).toEqual([true, true]);
    const [first] = String(request.headers['x-webhook-signature']).split(' ');
    expect(verifyWebhook({ ...request, headers: { ...request.headers, 'x-webhook-signature': first } }, [newSecret])).toEqual([true]);

    // Without a grace period the old secret stops at once.
    const immediate = await t.api.as(merchant.key).post(`/v1/webhook-endpoints/${id}/rotate-secret`, {});
    await topUp(merchant);
    const requests = await eventually(async () => receiver.at(path).length >= 2 && receiver.at(path));
    expect(String(requests[1].headers['x-webhook-signature'])).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(verifyWebhook(requests[1], [immediate.body.secret, newSecret])).toEqual([true, false]);
  });

  it('test sends a signed ping: 202, and the ping arrives', async () => {
    const { merchant, id, secret, path } = await merchantWithEndpoint(['reward.created']);
    const res = await t.api.as(merchant.key).post(`/v1/webhook-endpoints/${id}/test`);
    expect(res.status).toBe(202);
    expect(res.body.delivery).toMatchObject({ eventType: 'ping', status: 'PENDING', attempts: 0, eventId: expect.stringMatching(/^evt_/) });
    const [request] = await eventually(async () => receiver.at(path).length > 0 && receiver.at(path));
    expect(request.json).toEqual({ id: res.body.delivery.eventId, type: 'ping', createdAt: expect.any(String), data: { webhookEndpointId: id } });
    expect(request.headers['x-webhook-id']).toBe(res.body.delivery.eventId);
    expect(verifyWebhook(request, [secret])).toEqual([true]);

    await t.api.as(merchant.key).patch(`/v1/webhook-endpoints/${id}`, { active: false });
    expect((await t.api.as(merchant.key).post(`/v1/webhook-endpoints/${id}/test`)).status).toBe(422);
  });

  it('lists deliveries newest first, with the payload, paginated', async () => {
    const { merchant, id, path } = await merchantWithEndpoint();
    const topups: string[] = [];
    for (let i = 1; i <= 3; i++) {
      topups.push(await topUp(merchant, 1000 * i));
      await eventually(async () => receiver.at(path).length === i);
    }
    const list = await deliveries(merchant, id);
    expect(list.map((d) => d.payload.data.topupId)).toEqual([...topups].reverse());
    const page = await t.api.as(merchant.readKey).get(`/v1/webhook-endpoints/${id}/deliveries?page_size=1&page=2`);
    expect(page.body.total).toBe(3);
    expect(page.body.deliveries.map((d: any) => d.payload.data.topupId)).toEqual([topups[1]]);
  });

  it('an event committed with no job enqueued (a crash right after the commit) is still delivered by the relay', async () => {
    const { merchant, path } = await merchantWithEndpoint();
    const eventId = await t.app.get(DataSource).transaction((manager) =>
      recordEvent(manager, { accountId: merchant.accountId, type: 'reward.created', data: { id: 'rw_test', status: 'CREATED', valueCents: 500, remainingValueCents: 500, currency: 'USD', fx: null, externalId: null } }),
    );
    const [request] = await eventually(async () => receiver.at(path).length > 0 && receiver.at(path));
    expect(request.json).toMatchObject({ id: eventId, type: 'reward.created', data: { id: 'rw_test', status: 'CREATED', valueCents: 500 } });
    const [{ dispatched_at }] = await t.app.get(DataSource).query('SELECT dispatched_at FROM events WHERE id = $1', [eventId]);
    expect(dispatched_at).toBeInstanceOf(Date);
  });

  it('a delivery whose job was lost (a crash after fan-out, before enqueue) is found by the sweep and sent', async () => {
    const { merchant, id, path } = await merchantWithEndpoint();
    const body = JSON.stringify({ id: 'evt_lostjob', type: 'wallet.credited', createdAt: new Date().toISOString(), data: { topupId: 'tu_x', amountCents: 1, currency: 'USD' } });
    await t.app.get(DataSource).query(
      `INSERT INTO webhook_deliveries (id, endpoint_id, account_id, event_id, event_type, payload, next_attempt_at)
       VALUES ('whd_lostjob', $1, $2, 'evt_lostjob', 'wallet.credited', $3::json, now() - interval '1 minute')`,
      [id, merchant.accountId, body],
    );
    // The sweep runs now, as its 5-s timer would (docs/testing.md, Waiting for something else).
    await worker.app.get(DeliverySweep).sweep();
    const [request] = await eventually(async () => receiver.at(path).length > 0 && receiver.at(path), 20_000);
    expect(request.body).toBe(body);
    expect(request.headers['x-webhook-id']).toBe('evt_lostjob');
  });

  it('https to a receiver whose certificate does not verify (self-signed) is a failed attempt: TLS is verified', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webhook-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=tls.example.test',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    let handshakes = 0;
    const server = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_req, res) => res.end('ok'));
    server.on('secureConnection', () => handshakes++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      dns.set('tls.example.test', '127.0.0.1');
      const merchant = await seedMerchant(t);
      const port = (server.address() as AddressInfo).port;
      const res = await t.api.as(merchant.key).post('/v1/webhook-endpoints', { url: `https://tls.example.test:${port}/hook`, events: [] });
      expect(res.status).toBe(201);
      await topUp(merchant);
      const [delivery] = await eventually(async () => {
        const list = await deliveries(merchant, res.body.webhookEndpoint.id);
        return list[0]?.attempts >= 1 && list[0].lastError && list; // lastError is written when the attempt has finished
      });
      expect(delivery.status).not.toBe('SUCCEEDED');
      expect(delivery.responseStatus).toBeNull();
      expect(delivery.lastError).toMatch(/SELF_SIGNED|certificate/i);
      expect(handshakes).toBe(0);
    } finally {
      server.close();
    }
  });

  it("connects to the address the name resolved to when checked, keeping the URL's Host", async () => {
    const merchant = await seedMerchant(t);
    dns.set('receiver.example.test', '127.0.0.1');
    const path = `/hook/${++n}`;
    const res = await t.api.as(merchant.key).post('/v1/webhook-endpoints', { url: receiver.url(path, 'receiver.example.test'), events: [] });
    expect(res.status).toBe(201);
    await topUp(merchant);
    const [request] = await eventually(async () => receiver.at(path).length > 0 && receiver.at(path));
    expect(request.headers.host).toBe(`receiver.example.test:${receiver.port}`);
  });
});
