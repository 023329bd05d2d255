import { BullModule } from '@nestjs/bull';
import { DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { redisOptionsFromUrl } from '../redis/redis-options';

/**
 * Bull's Redis connection and key prefix for every queue. Domain libs register their queues
 * (producers) in their API module and their processors in a separate *WorkerModule, which only
 * the worker side imports.
 */
@Module({})
export class QueueModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: QueueModule,
      global: true,
      imports: [
        BullModule.forRoot({
          // Reconnects within 1 s of Redis coming back (Bull's own back-off waits up to 20 s).
          redis: redisOptionsFromUrl(config.redisUrl),
          prefix: config.queuePrefix,
          // A job whose worker died is handed to another worker within ~20 s (Bull renews the lock
          // of a running job every lockDuration/2, so long jobs are not affected).
          settings: { lockDuration: 15_000, stalledInterval: 5_000, maxStalledCount: 5 },
        }),
      ],
      exports: [BullModule],
    };
  }
}
