import { randomUUID } from 'node:crypto';
import { eventually } from '../support/processes';
import { choiceReward, fund } from '../support/rewards';
import { TcpProxy } from '../support/tcp-proxy';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

/**
 * PostgreSQL going away, played by cutting a TCP proxy the app connects through (the shared
 * PostgreSQL itself is never stopped): requests answer 503 with Retry-After in the error shape,
 * which a client's retry logic keys on, and the process serves again once it is back.
 */
describe('PostgreSQL unreachable', () => {
  const shared = new URL(process.env.DATABASE_URL!);
  const proxy = new TcpProxy(shared.hostname, Number(shared.port || 5432));
  let t: TestApp;
  let merchant: SeededMerchant;

  beforeAll(async () => {
    await proxy.start();
    t = await startTestApp({ env: { DATABASE_URL: proxy.urlFor(process.env.DATABASE_URL!) } });
    merchant = await seedMerchant(t);
    await fund(t, merchant, 10_000);
  });
  afterAll(async () => {
    await proxy.restore().catch(() => undefined);
    await t?.close();
    await proxy.cut();
  });

  it('answers 503 with Retry-After and the error shape to reads and writes, says so in readiness, and serves again once it is back', async () => {
    const api = t.api.as(merchant.key);
    expect((await api.get('/v1/account')).status).toBe(200);

    await proxy.cut();
    const read = await api.get('/v1/account');
    const write = await api.post('/v1/rewards', choiceReward(1_000), { headers: { 'Idempotency-Key': randomUUID() } });
    for (const res of [read, write]) {
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.body).toEqual({ error: 'internal', message: expect.stringMatching(/retry/i), requestId: expect.stringMatching(/^req_/) });
    }
    const ready = await fetch(`${t.baseUrl}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({
      status: 'unavailable',
      checks: { postgres: 'down', redis: 'ok' },
      supplier: 'closed',
      fx: { source: 'sandbox', status: 'unknown', asOf: null },
    });

    await proxy.restore();
    // The same process reconnects: no restart needed.
    await eventually(async () => (await api.get('/v1/account')).status === 200, 20_000, 200);
    const again = await api.post('/v1/rewards', choiceReward(1_000), { headers: { 'Idempotency-Key': randomUUID() } });
    expect(again.status).toBe(201);
  });
});
