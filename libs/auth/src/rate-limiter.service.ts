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
 * A consume's `unlessOver` option (hitUnlessBlocked): the blocking subject, its limit, its key in
 * Redis and its in-process counts (for the degraded mode).
 */
interface UnlessOver {
  rlKey: string;
  subject: string;
  limit: number;
  memory: InsuranceLimiter;
}

/** The rejection of a consume whose blocker is over its limit: nothing was counted; the blocker's count and time left. */
class BlockedBy extends RateLimiterRes {
  constructor(
    readonly count: number,
    readonly msLeft: number,
  ) {
    // More than any limit's points, so the library rejects it as it rejects an event over the limit.
    super(0, msLeft, Number.MAX_SAFE_INTEGER);
  }
}

/** Whether a blocker's state (as `get` reads it, Redis or memory) says it is over `limit`, as `peek` would judge its next event. */
function isOver(state: { consumedPoints: number; msBeforeNext: number } | null, limit: number): boolean {
  return state !== null && state.msBeforeNext > 0 && state.consumedPoints >= limit;
}

/**
 * The library's count (KEYS[1]: SET NX with the window, INCRBY, PTTL, as its own script does), unless
 * the blocker (KEYS[2]) holds ARGV[3] or more in a live window: then nothing is counted and the
 * answer is {-1, the blocker's count, its time left}. One script, so one round trip for both.
 */
const INCR_UNLESS_OVER_SCRIPT = `
local blocker = tonumber(redis.call('get', KEYS[2]) or '0')
local blockerTtl = redis.call('pttl', KEYS[2])
if blockerTtl > 0 and blocker >= tonumber(ARGV[3]) then
  return {-1, blocker, blockerTtl}
end
redis.call('set', KEYS[1], 0, 'EX', ARGV[2], 'NX')
local consumed = redis.call('incrby', KEYS[1], ARGV[1])
local ttl = redis.call('pttl', KEYS[1])
if ttl == -1 then
  redis.call('expire', KEYS[1], ARGV[2])
  ttl = 1000 * ARGV[2]
end
return {consumed, ttl}
`;

/** The parts of the library's store limiter (RateLimiterStoreAbstract) that a store implements, untyped in its declarations. */
interface StoreInternals {
  _upsert(rlKey: string, points: number, msDuration: number, forceExpire?: boolean, options?: Record<string, unknown>): Promise<unknown>;
  _getRateLimiterRes(rlKey: string, changedPoints: number, result: unknown): RateLimiterRes;
  _isRedisReady(rlKey: string, isReadonly: boolean): boolean;
}
const redisStore = RateLimiterRedis.prototype as unknown as StoreInternals;

/**
 * RateLimiterRedis, plus a consume that its blocker may refuse in the same round trip
 * (`consume(subject, 1, { unlessOver })`): the store methods the library lets a store implement
 * (`_upsert` writes, `_getRateLimiterRes` reads the answer) run INCR_UNLESS_OVER_SCRIPT instead of
 * the library's script for such a consume. The library does the rest as for any consume: an answer
 * over the limit (or a BlockedBy) rejects, a failed command goes to the insurance limiter.
 */
class SharedLimiter extends RateLimiterRedis {
  constructor(
    opts: Omit<ConstructorParameters<typeof RateLimiterRedis>[0], 'storeClient' | 'insuranceLimiter'>,
    private readonly redis: RedisClient,
    readonly memory: InsuranceLimiter,
  ) {
    super({ ...opts, storeClient: redis, insuranceLimiter: memory });
    redis.defineCommand('rlIncrUnlessOver', { numberOfKeys: 2, lua: INCR_UNLESS_OVER_SCRIPT });
  }

  _upsert(rlKey: string, points: number, msDuration: number, forceExpire = false, options: { unlessOver?: UnlessOver } = {}): Promise<unknown> {
    const unlessOver = options.unlessOver;
    if (!unlessOver || forceExpire) return redisStore._upsert.call(this, rlKey, points, msDuration, forceExpire, options);
    if (!redisStore._isRedisReady.call(this, rlKey, false)) return Promise.reject(new Error('Redis connection is not ready'));
    const command = (this.redis as unknown as Record<string, (...args: (string | number)[]) => Promise<number[]>>).rlIncrUnlessOver;
    return command.call(this.redis, rlKey, unlessOver.rlKey, String(points), String(Math.floor(msDuration / 1000)), String(unlessOver.limit));
  }

  _getRateLimiterRes(rlKey: string, changedPoints: number, result: unknown): RateLimiterRes {
    if (Array.isArray(result) && result[0] === -1) return new BlockedBy(Number(result[1]), Number(result[2]));
    return redisStore._getRateLimiterRes.call(this, rlKey, changedPoints, result);
  }
}

/**
 * The in-memory stand-in the library turns to when a Redis command fails: the library swallows the
 * failure, so this subclass is where the service learns of it (a log line, the fallback metric).
 * A consume with `unlessOver` asks the blocker's in-process counts first, as the script asks Redis.
 */
class InsuranceLimiter extends RateLimiterMemory {
  constructor(
    opts: ConstructorParameters<typeof RateLimiterMemory>[0],
    private readonly used: () => void,
  ) {
    super(opts);
  }

  override async consume(key: string | number, points?: number, options: { unlessOver?: UnlessOver } = {}): Promise<RateLimiterRes> {
    this.used();
    const unlessOver = options.unlessOver;
    if (unlessOver) {
      // Read without counting a second fallback: one decision.
      const blocker = await RateLimiterMemory.prototype.get.call(unlessOver.memory, unlessOver.subject);
      if (isOver(blocker, unlessOver.limit)) throw new BlockedBy(blocker!.consumedPoints, blocker!.msBeforeNext);
    }
    return super.consume(key, points, options);
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
  private readonly limiters = new Map<string, SharedLimiter>();
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
   * `hit`, unless `block` (bucket/subject) has already reached `block.limit` this window (as `peek`
   * would judge it): then its state is returned as `blocked` and nothing is counted. One Redis round
   * trip: the check and the count are one script (SharedLimiter), whose refusal comes back as the
   * consume's rejection.
   */
  async hitUnlessBlocked(
    block: { bucket: string; subject: string; limit: number },
    bucket: string,
    subject: string,
    limit: number,
    windowMs = 60_000,
  ): Promise<{ blocked: RateLimitState | null; usage: RateLimitState | null }> {
    const blocker = this.limiter(block.bucket, block.limit, windowMs);
    const unlessOver: UnlessOver = { rlKey: blocker.getKey(block.subject), subject: block.subject, limit: block.limit, memory: blocker.memory };
    const res = await this.answered(async () => {
      try {
        return await this.limiter(bucket, limit, windowMs).consume(subject, 1, { unlessOver });
      } catch (rejection) {
        // Over the limit (counted), or refused by the blocker (not counted): the library rejects both.
        if (rejection instanceof RateLimiterRes) return rejection;
        throw rejection;
      }
    });
    if (res instanceof BlockedBy) return { blocked: this.state(res.count + 1, res.msLeft, block.limit, windowMs), usage: null };
    return { blocked: null, usage: this.state(res.consumedPoints, res.msBeforeNext, limit, windowMs) };
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
  private limiter(bucket: string, limit: number, windowMs: number): SharedLimiter {
    const name = `${bucket}/${windowMs}`;
    let limiter = this.limiters.get(name);
    if (!limiter) {
      if (windowMs % 1000 !== 0 || windowMs <= 0) throw new Error(`A rate-limit window is whole seconds, not ${windowMs} ms`);
      const options = { keyPrefix: this.redis.key('ratelimit', bucket), points: limit, duration: windowMs / 1000 };
      limiter = new SharedLimiter(
        {
          ...options,
          useRedisPackage: false,
          // Not connected: straight to the insurance limiter, without trying the command.
          rejectIfRedisNotReady: true,
        },
        this.redis,
        new InsuranceLimiter(options, () => this.fellBack()),
      );
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
