import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { WebhooksWorkerModule } from '@app/webhooks';

/**
 * Queue processors and scheduled jobs. Imported by the worker process, and by the API process when
 * RUN_WORKERS=true (the `npm start` default). Each domain adds its *WorkerModule here.
 */
@Module({
  imports: [ScheduleModule.forRoot(), WebhooksWorkerModule],
})
export class WorkerModule {}
