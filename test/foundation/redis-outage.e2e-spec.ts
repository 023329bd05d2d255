import type { ApiResponse } from '../support/api-client';
import { DataSource } from 'typeorm';
import { PrivateRedis } from '../support/private-redis';
import { eventually } from '../support/processes';
import { RecipientClient, tokenOf } from '../support/redemption';
import { choiceReward, fund, recipient } from '../support/rewards';
import { SmtpSink } from '../support/smtp-sink';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';

/** Not a speed target: a request that waits on an absent Redis waits until it returns, which here is never. */
const HANG_BOUND_MS = 10_000;
async function answersWithoutWaitingOnRedis<T>(request: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the request waited on Redis')), HANG_BOUND_MS)));
  try {
    return await Promise.race([request, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Redis going away, on a redis-server of this suite's own (stopped with SIGKILL, its data lost, then
 * started again on the same port; the shared Redis is never touched). Requests keep being answered,
 * rate limits are counted per process meanwhile, and the background work of what was committed
 * during the outage still gets done once Redis is back.
 */
describe('Redis unreachable', () => {
  const redis = new PrivateRedis();
  const smtp = new SmtpSink();
  let t: TestApp;
  let worker: TestWorker;
  let merchant: SeededMerchant;

  beforeAll(async () => {
    await redis.start();
    t = await startTestApp({
      env: { REDIS_URL: redis.url, SMTP_URL: await smtp.start(), RATE_LIMIT_PER_MINUTE: '20' },
    });
    worker = await startTestWorker(t);
    merchant = await seedMerchant(t);
    await fund(t, merchant, 100_000);
  });
  afterAll(async () => {
    await redis.start().catch(() => undefined);
    await worker?.close();
    await t?.close();
    await redis.dispose();
    await smtp.stop();
  });

  it('keeps answering reads, writes and the redemption page, limits per process, and catches up once Redis is back', async () => {
    const api = t.api.as(merchant.key);
    await redis.kill();

    const read = await answersWithoutWaitingOnRedis(api.get('/v1/account'));
    expect(read.status).toBe(200);
    expect(Number(read.headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(0);

    const during = recipient();
    const sent = await answersWithoutWaitingOnRedis(api.post('/v1/rewards', choiceReward(1_000, { recipient: during })));
    expect(sent.status).toBe(201);

    const page = await answersWithoutWaitingOnRedis(new RecipientClient(t).page(tokenOf(sent.body.redemptionUrl)));
    expect(page.status).toBe(200);

    const ready = await fetch(`${t.baseUrl}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'degraded',
      checks: { postgres: 'ok', redis: 'down' },
      supplier: 'unknown',
      fx: { source: 'sandbox', status: 'fresh', asOf: expect.any(String) },
    });

    // The credential's limit (20 a minute) still holds, counted by this process alone.
    let refused: ApiResponse | undefined;
    for (let i = 0; i < 25 && !refused; i++) {
      const res = await answersWithoutWaitingOnRedis(api.get('/v1/account'));
      if (res.status === 429) refused = res;
      else expect(res.status).toBe(200);
    }
    expect(refused?.body.error).toBe('rate_limited');
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThan(0);

    const metrics = await (await fetch(`${t.baseUrl}/metrics`)).text();
    expect(Number(/^rate_limit_fallback_total (\d+)/m.exec(metrics)?.[1])).toBeGreaterThan(20);

    await redis.start();
    // Right after Redis returns, while the clients may still be reconnecting: a write is answered.
    const after = recipient();
    const other = await seedMerchant(t);
    await answersWithoutWaitingOnRedis(fund(t, other, 10_000));
    const sentAfter = await answersWithoutWaitingOnRedis(t.api.as(other.key).post('/v1/rewards', choiceReward(1_000, { recipient: after })));
    expect(sentAfter.status).toBe(201);

    // Redis lost the jobs of the outage; the rows were durable, and the sweeper enqueues them again.
    await eventually(async () => smtp.messages.some((m) => m.to.includes(during.email)) && smtp.messages.some((m) => m.to.includes(after.email)), 90_000, 500);
    // And their jobs are done. A job is marked SENT just after the server accepts its message, so the two e-mails
    // can arrive a moment before their jobs say so (a clean-clone CI run read both still PENDING).
    const pendingJobs = async () =>
      ((await t.app.get(DataSource).query(`SELECT count(*)::int AS n FROM mail_jobs WHERE status = 'PENDING'`)) as { n: number }[])[0].n;
    await eventually(async () => (await pendingJobs()) === 0 || undefined, 30_000, 200);
  }, 180_000);
});
