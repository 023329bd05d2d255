import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { compactListCounts } from '@app/core';

const COMPACT_EVERY_MS = 2_000;
const ROWS_PER_STATEMENT = 10_000;
const NAME = 'list-counts-compaction';

/**
 * Folds the count changes that writes append into the kept counts (docs/pagination.md, Totals).
 * Counts are exact without it; it keeps a count's read short. Several workers may run it at once.
 */
@Injectable()
export class ListCountsCompactor implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ListCountsCompactor.name);
  private running = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly scheduler: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    this.scheduler.addInterval(NAME, setInterval(() => void this.tick(), COMPACT_EVERY_MS));
  }

  onModuleDestroy(): void {
    if (this.scheduler.doesExist('interval', NAME)) this.scheduler.deleteInterval(NAME);
  }

  /** Folds until fewer than a statement's worth of changes are left. */
  async compact(): Promise<number> {
    let folded = 0;
    for (;;) {
      const n = await compactListCounts(this.dataSource.manager, ROWS_PER_STATEMENT);
      folded += n;
      if (n < ROWS_PER_STATEMENT) return folded;
    }
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await this.compact();
    } catch (error) {
      this.logger.error({ err: error }, `${NAME} failed`);
    } finally {
      this.running = false;
    }
  }
}
