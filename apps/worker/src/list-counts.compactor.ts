import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { compactListCounts, Sweepers } from '@app/core';

const COMPACT_EVERY_MS = 2_000;
const ROWS_PER_STATEMENT = 10_000;
export const LIST_COUNTS_COMPACTION = 'list-counts-compaction';

/**
 * Folds the count changes that writes append into the kept counts (docs/pagination.md, Totals),
 * registered with the worker's Sweepers (docs/operations.md, Background work). Counts are exact
 * without it; it keeps a count's read short. Several workers may run it at once.
 */
@Injectable()
export class ListCountsCompactor implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly sweepers: Sweepers,
  ) {}

  onModuleInit(): void {
    this.sweepers.register({ name: LIST_COUNTS_COMPACTION, everyMs: COMPACT_EVERY_MS, run: () => this.compact() });
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
}
