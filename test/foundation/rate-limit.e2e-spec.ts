import { seedMerchant, startTestApp, TestApp } from '../support/test-app';

describe('rate limit', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('allows 300 requests a minute per credential; the 301st gets 429 with Retry-After', async () => {
    const merchant = await seedMerchant(t);
    const api = t.api.as(merchant.readKey);
    const statuses: number[] = [];
    // Ten at a time: fast, but concurrent, as the counter must be.
    for (let batch = 0; batch < 30; batch++) {
      const responses = await Promise.all(Array.from({ length: 10 }, () => api.get('/v1/account')));
      for (const r of responses) statuses.push(r.status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(300);

    const limited = await api.get('/v1/account');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'rate_limited', message: expect.any(String) });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('ratelimit-limit')).toBe('300');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');

    // The limit is per credential: another key of the same account is unaffected.
    const other = await t.api.as(merchant.key).get('/v1/account');
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-remaining')).toBe('299');
  });

  it('counts across instances, because the counter lives in Redis', async () => {
    // A second app on the same QUEUE_PREFIX shares the counter, as two API processes would.
    const second = await startTestApp({ env: { QUEUE_PREFIX: t.config.queuePrefix, RATE_LIMIT_PER_MINUTE: '300' } });
    try {
      const merchant = await seedMerchant(t);
      const first = await t.api.as(merchant.readKey).get('/v1/account');
      const next = await second.api.as(merchant.readKey).get('/v1/account');
      expect(first.headers.get('ratelimit-remaining')).toBe('299');
      expect(next.headers.get('ratelimit-remaining')).toBe('298');
    } finally {
      await second.close();
    }
  });

  it('honours RATE_LIMIT_PER_MINUTE', async () => {
    const strict = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '2' } });
    try {
      const merchant = await seedMerchant(strict);
      const api = strict.api.as(merchant.key);
      expect((await api.get('/v1/account')).status).toBe(200);
      expect((await api.get('/v1/account')).status).toBe(200);
      expect((await api.get('/v1/account')).status).toBe(429);
    } finally {
      await strict.close();
    }
  });
});
