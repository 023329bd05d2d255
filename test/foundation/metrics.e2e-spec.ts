import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { loadConfig } from '@app/core';
import { WorkerAppModule } from '../../apps/worker/src/worker-app.module';
import { eventually } from '../support/processes';
import { catalogPicks, fixedReward, fund } from '../support/rewards';
import { freePort, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

/** The value of one series in Prometheus text, or undefined when it is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

/**
 * Supplier calls that were answered, ordering (issueCard) or looking up (getCard): a run that takes over a card
 * whose earlier run did not settle it (its call failed or its lease ran out, as happens on a loaded machine)
 * looks the card up before ordering, and finds it there when the first order went through
 * (docs/operations.md, Leases). Either is the supplier family moving.
 */
function supplierAnswered(text: string): number {
  const answered = (operation: string) => sample(text, 'supplier_request_duration_seconds_count', { operation, outcome: 'ok' }) ?? 0;
  return answered('issueCard') + answered('getCard');
}

describe('GET /metrics', () => {
  let t: TestApp;
  let workers: TestWorker;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    // The worker side in this process too.
    t = await startTestApp();
    workers = await startTestWorker(t);
  });
  afterAll(async () => {
    await workers.close();
    await t.close();
    await receiver.close();
  });

  const scrape = async () => {
    const res = await fetch(`${t.baseUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    return res.text();
  };

  it('after a reward is sent, the request, queue, issuance, supplier, e-mail, webhook and wallet families move', async () => {
    const merchant = await seedMerchant(t);
    await fund(t, merchant, 100_000);
    const hook = await t.api.as(merchant.key).post('/v1/webhook-endpoints', { url: receiver.url('/metrics-hook'), events: [] });
    expect(hook.status).toBe(201);
    const picks = await catalogPicks(t, merchant.key);
    const sent = await t.api.as(merchant.key).post('/v1/rewards', fixedReward(picks.fixedUsd));
    expect(sent.status).toBe(201);

    const text = await eventually(async () => {
      const body = await scrape();
      // Each family that has not moved yet is named, so a wait that runs out says which.
      const missing = Object.entries({
        'a card issued': sample(body, 'card_issuance_outcomes_total', { outcome: 'issued' }),
        'a supplier call answered': supplierAnswered(body),
        // Bull counts the job completed after one more round trip to Redis, so after the card was counted issued.
        'the issuance job completed': sample(body, 'queue_job_outcomes_total', { queue: 'card-issuance', outcome: 'completed' }),
        'an e-mail sent': sample(body, 'email_outcomes_total', { outcome: 'sent' }),
        'a webhook delivered': sample(body, 'webhook_delivery_attempts_total', { outcome: 'succeeded' }),
      })
        .filter(([, count]) => !((count ?? 0) >= 1))
        .map(([family]) => family);
      if (missing.length > 0) throw new Error(`not moved yet: ${missing.join(', ')}`);
      return body;
    }, 30_000, 250);

    // Requests by route template and status: the reward id never becomes a label.
    expect(sample(text, 'http_request_duration_seconds_count', { method: 'POST', route: '/v1/rewards', status: '201' })).toBe(1);
    expect(text).not.toContain(sent.body.reward.id);
    expect(supplierAnswered(text)).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'webhook_delivery_lag_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'queue_job_outcomes_total', { queue: 'card-issuance', outcome: 'completed' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'queue_jobs', { queue: 'mail', state: 'waiting' })).toBeDefined();
    expect(sample(text, 'wallet_reserved_cents', { currency: 'USD' })).toBeDefined();
    // Without DATABASE_READ_URL there is no replica to report on: none of its series (an `up` of 0 would page someone).
    expect(text).not.toMatch(/^database_read_replica_|^database_reads_total/m);
    expect(sample(text, 'webhook_oldest_pending_delivery_age_seconds')).toBeDefined();
  });

  it('refuses clients that are not on loopback when no METRICS_TOKEN is set', async () => {
    const proxied = await startTestApp({ env: { TRUST_PROXY: 'loopback' } });
    try {
      const res = await fetch(`${proxied.baseUrl}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ error: 'forbidden', message: expect.stringMatching(/loopback/) });
      expect((await fetch(`${proxied.baseUrl}/metrics`)).status).toBe(200);
    } finally {
      await proxied.close();
    }
  });

  it('with METRICS_TOKEN, only that bearer token opens it, from anywhere', async () => {
    const guarded = await startTestApp({ env: { METRICS_TOKEN: 'metrics-secret-1' } });
    try {
      expect((await fetch(`${guarded.baseUrl}/metrics`)).status).toBe(403);
      expect((await fetch(`${guarded.baseUrl}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(403);
      const ok = await fetch(`${guarded.baseUrl}/metrics`, { headers: { authorization: 'Bearer metrics-secret-1' } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('http_request_duration_seconds');
    } finally {
      await guarded.close();
    }
  });
});

describe('worker metrics on METRICS_PORT', () => {
  let worker: INestApplicationContext;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    const config = loadConfig({ ...process.env, METRICS_PORT: String(port), METRICS_TOKEN: 'worker-metrics' });
    worker = await NestFactory.createApplicationContext(WorkerAppModule.register(config), { logger: false });
    await worker.init();
  });
  afterAll(() => worker.close());

  it('the worker side, which serves no HTTP API, serves its own /metrics under the same rule', async () => {
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(403);
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: 'Bearer worker-metrics' } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(sample(text, 'queue_jobs', { queue: 'card-issuance', state: 'waiting' })).toBeDefined();
    expect(text).toContain('process_cpu_seconds_total');
  });
});
