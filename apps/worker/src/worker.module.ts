import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { CatalogWorkerModule } from '@app/catalog';
import { FxWorkerModule } from '@app/fx';
import { RewardsWorkerModule } from '@app/rewards';
import { WalletWorkerModule } from '@app/wallet';
import { WebhooksWorkerModule } from '@app/webhooks';
import { ListCountsCompactor } from './list-counts.compactor';

/**
 * Queue processors and scheduled jobs. Imported only by WorkerAppModule (never by the API module);
 * each domain adds its *WorkerModule here.
 */
@Module({
  imports: [ScheduleModule.forRoot(), CatalogWorkerModule, FxWorkerModule, RewardsWorkerModule, WalletWorkerModule, WebhooksWorkerModule],
  providers: [ListCountsCompactor],
})
export class WorkerModule {}
