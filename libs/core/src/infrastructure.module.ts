import { DynamicModule, Module } from '@nestjs/common';
import { ClockModule } from './clock/clock';
import type { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { CryptoModule } from './crypto/crypto.module';
import { DatabaseModule } from './database/database.module';
import { LoggingModule } from './logging/logging.module';
import { QueueModule } from './queue/queue.module';
import { RedisModule } from './redis/redis.module';

/** Configuration, the clock, the key ring, logs, Postgres, Redis and Bull: what every process (API, worker, CLI) stands on. */
@Module({})
export class InfrastructureModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: InfrastructureModule,
      imports: [
        ConfigModule.forRoot(config),
        ClockModule,
        CryptoModule,
        LoggingModule.forRoot(config),
        DatabaseModule,
        RedisModule,
        QueueModule.forRoot(config),
      ],
    };
  }
}
