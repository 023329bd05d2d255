import { DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { AppConfig, InfrastructureModule, MetricsModule } from '@app/core';
import { RewardJobsModule } from '@app/rewards';
import { WorkerModule } from './worker.module';

/**
 * The worker side as an application: infrastructure plus WorkerModule, serving no HTTP. Composed by
 * the worker process (main.ts), the worker thread of `npm start` (worker-thread.ts) and the tests
 * (test/support/test-app.ts startTestWorker). It enqueues its own jobs in Bull.
 */
@Module({})
export class WorkerAppModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: WorkerAppModule,
      imports: [InfrastructureModule.forRoot(config), RewardJobsModule.enqueueHere(), AuthModule, WorkerModule, MetricsModule.forWorker()],
    };
  }
}
