import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';

/** The service's own Redis connection (rate limits, locks); Bull keeps connections of its own. */
@Injectable()
export class RedisClient extends Redis implements OnApplicationShutdown {
  private readonly prefix: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    super(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
    this.prefix = config.queuePrefix;
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
