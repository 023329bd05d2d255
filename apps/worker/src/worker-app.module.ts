import { DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { AppConfig, InfrastructureModule, MetricsModule } from '@app/core';
import { WorkerModule } from './worker.module';

@Module({})
export class WorkerAppModule {
  static register(config: AppConfig): DynamicModule {
    return { module: WorkerAppModule, imports: [InfrastructureModule.forRoot(config), AuthModule, WorkerModule, MetricsModule.forWorker()] };
  }
}
