import { Module } from '@nestjs/common';
import { SweepersModule } from '@app/core';
import { CatalogModule } from './catalog.module';
import { CatalogSyncJob } from './catalog-sync.job';

/** The catalog's scheduled work; imported by the worker side only (apps/worker WorkerModule). */
@Module({
  imports: [CatalogModule, SweepersModule],
  providers: [CatalogSyncJob],
})
export class CatalogWorkerModule {}
