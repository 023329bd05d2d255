import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import { OutboxEventEntity } from '../outbox/outbox-event.entity';
import { dataSourceOptions } from './data-source-options';
import { PgNotifications } from './pg-notifications';
import { ReadRouting } from './read-replica';

@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({ ...dataSourceOptions(config), autoLoadEntities: true }),
    }),
    TypeOrmModule.forFeature([OutboxEventEntity]),
  ],
  providers: [PgNotifications, ReadRouting],
  exports: [PgNotifications, ReadRouting],
})
export class DatabaseModule {}
