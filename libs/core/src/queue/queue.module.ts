import { BullModule } from '@nestjs/bull';
import { DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';

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
      imports: [BullModule.forRoot({ redis: config.redisUrl, prefix: config.queuePrefix })],
      exports: [BullModule],
    };
  }
}
