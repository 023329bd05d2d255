import { Injectable } from '@nestjs/common';
import type { Scope } from '@app/auth';
import type { Reader } from '@app/core';
import { CARD_REPORT_COLUMNS, REWARD_REPORT_COLUMNS, RewardReports } from '@app/rewards';
import { WALLET_TRANSACTION_REPORT_COLUMNS, WalletReports } from '@app/wallet';
import type { ReportType } from './entities/report.entity';
import type { ReportCell } from './report-csv';

/**
 * What a report of one type is made of (docs/reports.md): the scope that reads it, its columns, its
 * filters checked as the list of the resource checks them, and its rows, read by the lib that owns
 * the table a batch at a time.
 */
export interface ReportSource {
  scope: Scope;
  columns: readonly string[];
  filters(accountId: string, given: unknown, now: Date): Promise<Record<string, string>>;
  /** `read` runs each batch's statements (on the read replica while it serves: docs/scaling.md, Read replica). */
  rows(read: Reader, accountId: string, filters: Record<string, string>, batchSize: number): AsyncIterable<ReportCell[][]>;
}

@Injectable()
export class ReportSources {
  private readonly sources: Record<ReportType, ReportSource>;

  constructor(rewards: RewardReports, wallet: WalletReports) {
    this.sources = {
      rewards: {
        scope: 'rewards:read',
        columns: REWARD_REPORT_COLUMNS,
        filters: (_accountId, given, now) => rewards.filters(given, now),
        rows: (read, accountId, filters, batchSize) => rewards.rewardRows(read, accountId, filters, batchSize),
      },
      cards: {
        scope: 'rewards:read',
        columns: CARD_REPORT_COLUMNS,
        filters: (_accountId, given, now) => rewards.filters(given, now),
        rows: (read, accountId, filters, batchSize) => rewards.cardRows(read, accountId, filters, batchSize),
      },
      wallet_transactions: {
        scope: 'wallet:read',
        columns: WALLET_TRANSACTION_REPORT_COLUMNS,
        filters: (accountId, given, now) => wallet.filters(accountId, given, now),
        rows: (read, accountId, filters, batchSize) => wallet.rows(read, accountId, filters, batchSize),
      },
    };
  }

  of(type: ReportType): ReportSource {
    return this.sources[type];
  }
}
