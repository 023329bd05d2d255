import { Injectable, OnModuleInit } from '@nestjs/common';
import { Sweepers } from '@app/core';
import { CatalogSyncService } from './catalog-sync.service';

export const CATALOG_SYNC = 'catalog-sync';
const HOUR_MS = 60 * 60 * 1000;

/**
 * Keeps our copy of the supplier catalog fresh, registered with the worker's Sweepers
 * (docs/operations.md, Background work); every worker runs it, the advisory lock serializes them.
 */
@Injectable()
export class CatalogSyncJob implements OnModuleInit {
  constructor(
    private readonly sync: CatalogSyncService,
    private readonly sweepers: Sweepers,
  ) {}

  onModuleInit(): void {
    this.sweepers.register({ name: CATALOG_SYNC, everyMs: HOUR_MS, run: () => this.run() });
  }

  async run(): Promise<void> {
    await this.sync.syncLogged('hourly');
  }
}
