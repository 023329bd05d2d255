import { Injectable, Logger } from '@nestjs/common';
import { RedisClient, rateLimitFallbacks } from '@app/core';
import { LocalRateLimits } from './local-rate-limits';

export interface RateLimitState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
}

// INCR and PEXPIRE in one step, so a crash between them can never leave a counter without expiry.
const HIT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('PTTL', KEYS[1])}`;

// The same, unless the subject in KEYS[1] (an address) is already over its own limit ARGV[2]:
// then nothing is counted and the answer is {-1, ttl of KEYS[1]}. One round trip for both checks.
const HIT_UNLESS_BLOCKED = `
local blocked = tonumber(redis.call('GET', KEYS[1]) or '0')
if blocked + 1 > tonumber(ARGV[2]) then return {-1, redis.call('PTTL', KEYS[1])} end
local count = redis.call('INCR', KEYS[2])
if count == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[1]) end
return {count, redis.call('PTTL', KEYS[2])}`;

type Scripted = RedisClient & {
  rateLimitHit(key: string, windowMs: number): Promise<[number, number]>;
  rateLimitHitUnlessBlocked(blockKey: string, key: string, windowMs: number, blockLimit: number): Promise<[number, number]>;
};

/**
 * Fixed-window counters in Redis, shared by every instance, so a limit holds however many API
 * processes run. Keys live under QUEUE_PREFIX. Scripts go by their SHA (EVALSHA), not their text.
 *
 * While Redis cannot be reached (a command fails at once when disconnected, or times out), every
 * limit is counted in this process instead (LocalRateLimits): requests keep being answered, with
 * per-process limits, rather than failing. Logged once per outage and counted in
 * `rate_limit_fallback_total` (docs/operations.md, Degraded modes).
 */
@Injectable()
export class RateLimiter {
  private readonly logger = new Logger(RateLimiter.name);
  private readonly redis: Scripted;
  private readonly local = new LocalRateLimits();
  private degraded = false;

  constructor(redis: RedisClient) {
    redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT });
    redis.defineCommand('rateLimitHitUnlessBlocked', { numberOfKeys: 2, lua: HIT_UNLESS_BLOCKED });
    this.redis = redis as Scripted;
  }

  /** Counts one event against `bucket/subject` and says whether it is within `limit` per window. */
  async hit(bucket: string, subject: string, limit: number, windowMs = 60_000): Promise<RateLimitState> {
    const key = this.key(bucket, subject);
    const [count, ttl] = await this.orLocally(
      () => this.redis.rateLimitHit(key, windowMs),
      () => this.local.hit(key, windowMs),
    );
    return this.state(count, ttl, limit, windowMs);
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
    const blockKey = this.key(block.bucket, block.subject);
    const key = this.key(bucket, subject);
    const [count, ttl] = await this.orLocally(
      () => this.redis.rateLimitHitUnlessBlocked(blockKey, key, windowMs, block.limit),
      (): [number, number] => {
        const [blocked, blockTtl] = this.local.peek(blockKey);
        return blocked + 1 > block.limit ? [-1, blockTtl] : this.local.hit(key, windowMs);
      },
    );
    if (count === -1) return { blocked: this.state(block.limit + 1, ttl, block.limit, windowMs), usage: null };
    return { blocked: null, usage: this.state(count, ttl, limit, windowMs) };
  }

  /** The state without counting: used to refuse before doing work when a subject is already over. */
  async peek(bucket: string, subject: string, limit: number, windowMs = 60_000): Promise<RateLimitState> {
    const key = this.key(bucket, subject);
    const [count, ttl] = await this.orLocally(
      async (): Promise<[number, number]> => {
        const [[, count], [, ttl]] = (await this.redis.multi().get(key).pttl(key).exec()) as [[null, string | null], [null, number]];
        return [Number(count ?? 0), ttl];
      },
      () => this.local.peek(key),
    );
    return this.state(count + 1, ttl, limit, windowMs);
  }

  /** Redis's answer, or while Redis cannot answer, this process's own count. */
  private async orLocally(shared: () => Promise<[number, number]>, local: () => [number, number]): Promise<[number, number]> {
    try {
      const answer = await shared();
      if (this.degraded) {
        this.degraded = false;
        this.logger.log('Redis answers again; rate limits are shared across processes again');
      }
      return answer;
    } catch (error) {
      if (!this.degraded) {
        this.degraded = true;
        this.logger.warn({ err: error }, 'Redis unreachable; rate limits are counted per process until it returns');
      }
      rateLimitFallbacks.inc();
      return local();
    }
  }

  private key(bucket: string, subject: string): string {
    return this.redis.key('ratelimit', bucket, subject);
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
