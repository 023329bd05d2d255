import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { CatalogWorkerModule } from '@app/catalog';
import { RewardsWorkerModule } from '@app/rewards';
import { WebhooksWorkerModule } from '@app/webhooks';

/**
 * Queue processors and scheduled jobs. Imported by the worker process, and by the API process when
 * RUN_WORKERS=true (the `npm start` default). Each domain adds its *WorkerModule here.
 */
@Module({
  imports: [ScheduleModule.forRoot(), CatalogWorkerModule, RewardsWorkerModule, WebhooksWorkerModule],
})
export class WorkerModule {}
