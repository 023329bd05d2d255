import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { Logger } from '@nestjs/common';
import { AppConfig, RedisClient } from '@app/core';
import { TcpProxy } from '../support/tcp-proxy';
import { RateLimiter, rateLimitFallbacks } from '../../libs/auth/src/rate-limiter.service';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A connection of the service's own kind, under a QUEUE_PREFIX no other test shares. */
function redisClient(queuePrefix: string, redisUrl = REDIS_URL): RedisClient {
  return new RedisClient({ redisUrl, queuePrefix } as AppConfig);
}

async function fallbacks(): Promise<number> {
  return (await rateLimitFallbacks.get()).values[0]?.value ?? 0;
}

/**
 * The wrapper around rate-limiter-flexible (docs/auth.md, Rate limits): fixed windows in Redis under
 * QUEUE_PREFIX, shared by every process, and per-process counting in memory while Redis is away
 * (docs/operations.md, Degraded modes). On the real Redis; the outage is a cut TCP proxy.
 */
describe('RateLimiter', () => {
  const prefix = `rl-spec-${randomBytes(4).toString('hex')}`;
  const clients: RedisClient[] = [];
  const connect = async (url?: string): Promise<RedisClient> => {
    const client = redisClient(prefix, url);
    clients.push(client);
    await client.connected;
    return client;
  };

  afterAll(async () => {
    const admin = await connect();
    // SCAN, not KEYS: on a Redis holding many keys of others, KEYS outlasts the client's 500 ms command timeout.
    let cursor = '0';
    do {
      const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length) await admin.unlink(keys);
      cursor = next;
    } while (cursor !== '0');
    for (const client of clients) client.disconnect();
  });

  it('counts in a window of its own per subject, shared by every process on the same QUEUE_PREFIX', async () => {
    const redis = await connect();
    const one = new RateLimiter(redis);
    const two = new RateLimiter(await connect());

    expect(await one.hit('things', 'a', 3)).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
    expect(await two.hit('things', 'a', 3)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await one.hit('things', 'a', 3)).toMatchObject({ allowed: true, remaining: 0 });
    const over = await two.hit('things', 'a', 3);
    expect(over).toMatchObject({ allowed: false, remaining: 0 });
    expect(over.resetSeconds).toBeGreaterThanOrEqual(1);
    expect(over.resetSeconds).toBeLessThanOrEqual(60);
    // Refused events still count, as before: the window does not reopen while a client keeps trying.
    expect(await redis.get(`${prefix}:ratelimit:things:a`)).toBe('4');
    const ttl = await redis.pttl(`${prefix}:ratelimit:things:a`);
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(60_000);

    expect(await one.hit('things', 'b', 3)).toMatchObject({ allowed: true, remaining: 2 });
    expect(await one.hit('others', 'a', 3)).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('peeks without counting, as the next hit would be judged', async () => {
    const limiter = new RateLimiter(await connect());
    expect(await limiter.peek('failures', 'x', 2, 15 * 60_000)).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 900 });
    expect(await limiter.peek('failures', 'x', 2, 15 * 60_000)).toMatchObject({ allowed: true, remaining: 1 });
    await limiter.hit('failures', 'x', 2, 15 * 60_000);
    expect(await limiter.peek('failures', 'x', 2, 15 * 60_000)).toMatchObject({ allowed: true, remaining: 0 });
    await limiter.hit('failures', 'x', 2, 15 * 60_000);
    const used = await limiter.peek('failures', 'x', 2, 15 * 60_000);
    expect(used).toMatchObject({ allowed: false, remaining: 0 });
    expect(used.resetSeconds).toBeGreaterThan(850);
    expect(used.resetSeconds).toBeLessThanOrEqual(900);
  });

  it('hitUnlessBlocked counts nothing while the blocking subject is over its limit', async () => {
    const limiter = new RateLimiter(await connect());
    const block = { bucket: 'auth-failures', subject: '10.0.0.1', limit: 1 };
    expect(await limiter.hitUnlessBlocked(block, 'credential', 'k', 5)).toEqual({
      blocked: null,
      usage: { allowed: true, limit: 5, remaining: 4, resetSeconds: 60 },
    });
    await limiter.hit('auth-failures', '10.0.0.1', 1);
    const refused = await limiter.hitUnlessBlocked(block, 'credential', 'k', 5);
    expect(refused.usage).toBeNull();
    expect(refused.blocked).toMatchObject({ allowed: false, limit: 1, remaining: 0 });
    expect(await limiter.peek('credential', 'k', 5)).toMatchObject({ remaining: 3 });
  });

  it('hitUnlessBlocked decides in one Redis round trip: one command, the check and the count together', async () => {
    const redis = await connect();
    const limiter = new RateLimiter(redis);
    const block = { bucket: 'trip-failures', subject: '10.0.0.2', limit: 2 };
    await limiter.hitUnlessBlocked(block, 'trip-credential', 'k', 5); // loads the script
    const sent = jest.spyOn(redis, 'sendCommand');
    try {
      expect((await limiter.hitUnlessBlocked(block, 'trip-credential', 'k', 5)).usage).toMatchObject({ allowed: true, remaining: 3 });
      expect(sent).toHaveBeenCalledTimes(1);
      await limiter.hit('trip-failures', '10.0.0.2', 2);
      await limiter.hit('trip-failures', '10.0.0.2', 2);
      sent.mockClear();
      const refused = await limiter.hitUnlessBlocked(block, 'trip-credential', 'k', 5);
      expect(refused.blocked).toMatchObject({ allowed: false, limit: 2, remaining: 0 });
      expect(sent).toHaveBeenCalledTimes(1);
    } finally {
      sent.mockRestore();
    }
    expect(await limiter.peek('trip-credential', 'k', 5)).toMatchObject({ remaining: 2 });
  });

  it('hitUnlessBlocked in memory while Redis is away: the blocker\'s local count refuses, and nothing is counted', async () => {
    const redis = await connect();
    const closed = once(redis, 'end');
    redis.disconnect(); // for good: every decision is local
    await closed;
    const limiter = new RateLimiter(redis);
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const block = { bucket: 'local-failures', subject: '10.0.0.3', limit: 1 };
      expect((await limiter.hitUnlessBlocked(block, 'local-credential', 'k', 5)).usage).toMatchObject({ allowed: true, remaining: 4 });
      await limiter.hit('local-failures', '10.0.0.3', 1);
      const refused = await limiter.hitUnlessBlocked(block, 'local-credential', 'k', 5);
      expect(refused).toMatchObject({ usage: null, blocked: { allowed: false, limit: 1, remaining: 0 } });
      expect(await limiter.peek('local-credential', 'k', 5)).toMatchObject({ remaining: 3 });
    } finally {
      warn.mockRestore();
    }
  });

  it('counts in this process while Redis is away, says so once, and shares counts again once it is back', async () => {
    const target = new URL(REDIS_URL);
    const proxy = await new TcpProxy(target.hostname, Number(target.port || 6379)).start();
    const redis = await connect(proxy.urlFor(REDIS_URL));
    const limiter = new RateLimiter(redis);
    const other = new RateLimiter(await connect());
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    try {
      expect(await limiter.hit('outage', 's', 2)).toMatchObject({ allowed: true, remaining: 1 });

      await proxy.cut();
      const before = await fallbacks();
      expect(await limiter.hit('outage', 's', 2)).toMatchObject({ allowed: true, remaining: 1 });
      expect(await limiter.hit('outage', 's', 2)).toMatchObject({ allowed: true, remaining: 0 });
      const over = await limiter.hit('outage', 's', 2);
      expect(over).toMatchObject({ allowed: false, remaining: 0 });
      expect(over.resetSeconds).toBeGreaterThanOrEqual(59);
      expect(await limiter.peek('outage', 's', 2)).toMatchObject({ allowed: false });
      expect(await limiter.peek('outage', 'unseen', 2)).toMatchObject({ allowed: true, remaining: 1 });
      expect((await fallbacks()) - before).toBe(5);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(log).not.toHaveBeenCalled();

      const ready = once(redis, 'ready');
      await proxy.restore();
      await ready;
      // Redis still holds the count from before the outage; the other process sees what this one counts.
      expect(await limiter.hit('outage', 's', 2)).toMatchObject({ allowed: true, remaining: 0 });
      expect(await other.peek('outage', 's', 2)).toMatchObject({ allowed: false });
      expect(log).toHaveBeenCalledTimes(1);
      expect((await fallbacks()) - before).toBe(5);
    } finally {
      warn.mockRestore();
      log.mockRestore();
      redis.disconnect();
      await proxy.cut();
    }
  });

  it('in memory, a window starts at its first hit and a new one opens when it ends', async () => {
    const redis = await connect();
    const closed = once(redis, 'end');
    redis.disconnect(); // for good (no reconnection): every decision is local
    await closed;
    const limiter = new RateLimiter(redis);
    let now = Date.parse('2025-01-01T00:00:10Z'); // the in-memory counters read the time from Date.now
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      expect(await limiter.hit('local', 's', 1)).toMatchObject({ allowed: true, resetSeconds: 60 });
      now += 30_000;
      expect(await limiter.hit('local', 's', 1)).toMatchObject({ allowed: false, resetSeconds: 30 });
      now += 29_500;
      expect(await limiter.peek('local', 's', 1)).toMatchObject({ allowed: false, resetSeconds: 1 });
      now += 500;
      expect(await limiter.peek('local', 's', 1)).toMatchObject({ allowed: true, remaining: 0 });
      expect(await limiter.hit('local', 's', 1)).toMatchObject({ allowed: true, resetSeconds: 60 });
    } finally {
      warn.mockRestore();
      clock.mockRestore();
    }
  });
});
