import { Module } from '@nestjs/common';
import { CatalogModule } from './catalog.module';
import { CatalogSyncJob } from './catalog-sync.job';

/** The catalog's scheduled work; imported by the worker side only (apps/worker WorkerModule). */
@Module({
  imports: [CatalogModule],
  providers: [CatalogSyncJob],
})
export class CatalogWorkerModule {}
