import type { RedisClient } from '@app/core';
import type { SandboxOrder, SandboxOrderBook } from './sandbox-supplier';

/**
 * The sandbox's order book in Redis, under QUEUE_PREFIX: every process of one instance sees the same
 * orders, as it would at a real supplier. `repeats` counts orders asked for again with a reference
 * that already had one (answered with the original), which tests read to show no card was ordered
 * blindly twice.
 */
export class SandboxRedisOrderBook implements SandboxOrderBook {
  constructor(private readonly redis: RedisClient) {}

  static ordersKey(redis: Pick<RedisClient, 'key'>): string {
    return redis.key('sandbox-supplier', 'orders');
  }

  static repeatsKey(redis: Pick<RedisClient, 'key'>): string {
    return redis.key('sandbox-supplier', 'repeats');
  }

  async find(reference: string): Promise<SandboxOrder | null> {
    const found = await this.redis.hget(SandboxRedisOrderBook.ordersKey(this.redis), reference);
    return found ? (JSON.parse(found) as SandboxOrder) : null;
  }

  async place(reference: string, order: SandboxOrder): Promise<boolean> {
    return (await this.redis.hsetnx(SandboxRedisOrderBook.ordersKey(this.redis), reference, JSON.stringify(order))) === 1;
  }

  async noteRepeat(reference: string): Promise<void> {
    await this.redis.hincrby(SandboxRedisOrderBook.repeatsKey(this.redis), reference, 1);
  }
}
