import { Injectable } from '@nestjs/common';
import { RedisClient } from '@app/core';

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

/**
 * Fixed-window counters in Redis, shared by every instance, so a limit holds however many API
 * processes run. Keys live under QUEUE_PREFIX.
 */
@Injectable()
export class RateLimiter {
  constructor(private readonly redis: RedisClient) {}

  /** Counts one event against `bucket/subject` and says whether it is within `limit` per window. */
  async hit(bucket: string, subject: string, limit: number, windowMs = 60_000): Promise<RateLimitState> {
    const [count, ttl] = (await this.redis.eval(HIT, 1, this.key(bucket, subject), windowMs)) as [number, number];
    return this.state(count, ttl, limit, windowMs);
  }

  /** The state without counting: used to refuse before doing work when a subject is already over. */
  async peek(bucket: string, subject: string, limit: number, windowMs = 60_000): Promise<RateLimitState> {
    const key = this.key(bucket, subject);
    const [[, count], [, ttl]] = (await this.redis.multi().get(key).pttl(key).exec()) as [
      [null, string | null],
      [null, number],
    ];
    return this.state(Number(count ?? 0) + 1, ttl, limit, windowMs);
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
