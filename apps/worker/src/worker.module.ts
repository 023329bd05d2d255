import { Module } from '@nestjs/common';
import { CatalogWorkerModule } from '@app/catalog';
import { SweepersModule } from '@app/core';
import { FxWorkerModule } from '@app/fx';
import { ReportsWorkerModule } from '@app/reports';
import { RewardsWorkerModule } from '@app/rewards';
import { WalletWorkerModule } from '@app/wallet';
import { WebhooksWorkerModule } from '@app/webhooks';
import { ListCountsCompactor } from './list-counts.compactor';

/**
 * Queue processors and periodic jobs (each registered by its owner on the one Sweepers registry).
 * Imported only by WorkerAppModule (never by the API module); each domain adds its *WorkerModule here.
 */
@Module({
  imports: [SweepersModule, CatalogWorkerModule, FxWorkerModule, ReportsWorkerModule, RewardsWorkerModule, WalletWorkerModule, WebhooksWorkerModule],
  providers: [ListCountsCompactor],
})
export class WorkerModule {}
