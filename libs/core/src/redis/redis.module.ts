import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import { redisOptionsFromUrl } from './redis-options';

/** A command that has not answered in this long fails (a Redis that hangs rather than refuses). */
export const REDIS_COMMAND_TIMEOUT_MS = 500;

/**
 * The service's own Redis connection (rate limits, readiness); Bull keeps connections of its own.
 * It fails fast rather than waiting for Redis: while disconnected a command fails at once (no
 * offline queue) instead of queueing until Redis returns, and one that hangs fails after
 * REDIS_COMMAND_TIMEOUT_MS, so a request never waits on a Redis that is away (callers fall back,
 * docs/operations.md, Degraded modes).
 */
@Injectable()
export class RedisClient extends Redis implements OnApplicationShutdown {
  private readonly prefix: string;
  /** Resolves once the first connection is up (commands before it fail at once, as while Redis is away). */
  readonly connected: Promise<void>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    super({
      ...redisOptionsFromUrl(config.redisUrl),
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      lazyConnect: false,
    });
    this.prefix = config.queuePrefix;
    // Without a listener an unreachable Redis is an unhandled 'error' event per reconnect attempt.
    this.on('error', () => undefined);
    this.connected = new Promise((resolve) => this.once('ready', () => resolve()));
  }

  /** Namespaces a key under QUEUE_PREFIX so several instances or test runs can share one Redis. */
  key(...parts: string[]): string {
    return [this.prefix, ...parts].join(':');
  }

  async onApplicationShutdown(): Promise<void> {
    await this.quit().catch(() => this.disconnect());
  }
}

@Global()
@Module({ providers: [RedisClient], exports: [RedisClient] })
export class RedisModule {}
