import { Injectable, Logger } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { Counter } from 'prom-client';
import { metricsRegistry, RedisClient } from '@app/core';

/** docs/operations.md, Metrics. */
export const rateLimitFallbacks = new Counter({
  name: 'rate_limit_fallback_total',
  help: 'Rate-limit decisions taken by this process alone (in-process counters) because Redis could not be reached.',
  registers: [metricsRegistry],
});

export interface RateLimitState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
}

/**
 * The in-memory stand-in the library turns to when a Redis command fails: the library swallows the
 * failure, so this subclass is where the service learns of it (a log line, the fallback metric).
 */
class InsuranceLimiter extends RateLimiterMemory {
  constructor(
    opts: ConstructorParameters<typeof RateLimiterMemory>[0],
    private readonly used: () => void,
  ) {
    super(opts);
  }

  override consume(...args: Parameters<RateLimiterMemory['consume']>): Promise<RateLimiterRes> {
    this.used();
    return super.consume(...args);
  }

  override get(...args: Parameters<RateLimiterMemory['get']>): Promise<RateLimiterRes | null> {
    this.used();
    return super.get(...args);
  }
}

/**
 * Fixed-window counters (docs/auth.md, Rate limits), counted by `rate-limiter-flexible`: a
 * RateLimiterRedis per bucket and window on the service's own Redis connection, shared by every
 * instance, so a limit holds however many API processes run. Keys are
 * `<QUEUE_PREFIX>:ratelimit:<bucket>:<subject>`; a window starts at its first hit.
 *
 * While Redis cannot be reached (the connection is not ready, or a command times out), each limiter's
 * `insuranceLimiter`, a RateLimiterMemory, counts in this process instead: requests keep being
 * answered, with per-process limits, rather than failing. Logged once per outage and counted in
 * `rate_limit_fallback_total` (docs/operations.md, Degraded modes).
 */
@Injectable()
export class RateLimiter {
  private readonly logger = new Logger(RateLimiter.name);
  private readonly limiters = new Map<string, RateLimiterRedis>();
  /** Decisions taken in memory so far; a call during which it did not move was answered by Redis. */
  private fallbacks = 0;
  private degraded = false;

  constructor(private readonly redis: RedisClient) {}

  /** Counts one event against `bucket/subject` and says whether it is within `limit` per window. */
  async hit(bucket: string, subject: string, limit: number, windowMs = 60_000): Promise<RateLimitState> {
    const res = await this.answered(async () => {
      try {
        return await this.limiter(bucket, limit, windowMs).consume(subject);
      } catch (rejection) {
        // Over the limit: the library still counted the event, and says so by rejecting.
        if (rejection instanceof RateLimiterRes) return rejection;
        throw rejection;
      }
    });
    return this.state(res.consumedPoints, res.msBeforeNext, limit, windowMs);
  }

  /**
   * `hit`, unless `block` (bucket/subject) has already reached `blockLimit` this window: then its
   * state is returned as `blocked` and nothing is counted.
   */
  async hitUnlessBlocked(
    block: { bucket: string; subject: string; limit: number },
    bucket: string,
    subject: string,
    limit: number,
    windowMs = 60_000,
  ): Promise<{ blocked: RateLimitState | null; usage: RateLimitState | null }> {
    const blocked = await this.peek(block.bucket, block.subject, block.limit, windowMs);
    if (!blocked.allowed) return { blocked, usage: null };
    return { blocked: null, usage: await this.hit(bucket, subject, limit, windowMs) };
  }

  /** The state without counting: used to refuse before doing work when a subject is already over. */
  async peek(bucket: string, subject: string, limit: number, windowMs = 60_000): Promise<RateLimitState> {
    const res = await this.answered(() => this.limiter(bucket, limit, windowMs).get(subject));
    // No window, or one that has just ended (memory drops it a moment later): nothing counted yet.
    const current = res !== null && res.msBeforeNext > 0 ? res : null;
    return this.state((current?.consumedPoints ?? 0) + 1, current?.msBeforeNext ?? 0, limit, windowMs);
  }

  /**
   * The limiter of one bucket and window, made on first use. Whether an event is allowed is decided
   * above from its count against the caller's `limit`; the library's `points` only say whether it
   * resolves or rejects.
   */
  private limiter(bucket: string, limit: number, windowMs: number): RateLimiterRedis {
    const name = `${bucket}/${windowMs}`;
    let limiter = this.limiters.get(name);
    if (!limiter) {
      if (windowMs % 1000 !== 0 || windowMs <= 0) throw new Error(`A rate-limit window is whole seconds, not ${windowMs} ms`);
      const options = { keyPrefix: this.redis.key('ratelimit', bucket), points: limit, duration: windowMs / 1000 };
      limiter = new RateLimiterRedis({
        ...options,
        storeClient: this.redis,
        useRedisPackage: false,
        // Not connected: straight to the insurance limiter, without trying the command.
        rejectIfRedisNotReady: true,
        insuranceLimiter: new InsuranceLimiter(options, () => this.fellBack()),
      });
      this.limiters.set(name, limiter);
    }
    return limiter;
  }

  private fellBack(): void {
    this.fallbacks += 1;
    rateLimitFallbacks.inc();
    if (!this.degraded) {
      this.degraded = true;
      this.logger.warn({ redisStatus: this.redis.status }, 'Redis unreachable; rate limits are counted per process until it returns');
    }
  }

  /** Runs one decision, and notices when Redis answers again after an outage. */
  private async answered<T>(decide: () => Promise<T>): Promise<T> {
    const before = this.fallbacks;
    const answer = await decide();
    if (this.degraded && this.fallbacks === before) {
      this.degraded = false;
      this.logger.log('Redis answers again; rate limits are shared across processes again');
    }
    return answer;
  }

  private state(count: number, ttl: number, limit: number, windowMs: number): RateLimitState {
    const remainingMs = ttl > 0 ? ttl : windowMs;
    return {
      allowed: count <= limit,
      limit,
      remaining: Math.max(0, limit - count),
      resetSeconds: Math.max(1, Math.ceil(remainingMs / 1000)),
    };
  }
}
