import { Injectable } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { CatalogSyncService } from './catalog-sync.service';

const HOUR_MS = 60 * 60 * 1000;

/** Keeps our copy of the supplier catalog fresh; every worker runs it, the advisory lock serializes them. */
@Injectable()
export class CatalogSyncJob {
  constructor(private readonly sync: CatalogSyncService) {}

  @Interval('catalog-sync', HOUR_MS)
  async run(): Promise<void> {
    await this.sync.syncLogged('hourly');
  }
}
