import { Injectable } from '@nestjs/common';
import { DateRange, listFiltersAsQuery, readListBatches, Reader, reportDateRange } from '@app/core';
import { Currencies } from './currencies';
import { WalletTransactionsQueryDto } from './dto/wallet.dto';
import { WalletTransactionEntity, WalletTransactionKind } from './entities/wallet-transaction.entity';
import type { WalletTransactionFilter } from './wallet-ledger.service';

/** The filters `GET /v1/wallet/transactions` takes (its query, less paging); a transactions report takes the same (docs/reports.md). */
export const WALLET_TRANSACTION_FILTER_FIELDS = ['currency', 'kind', 'related_id', 'created_gte', 'created_lt'] as const;

/** The transactions list's query as its filter: one reading for the list and for reports. */
export function walletTransactionFilterOf(query: Omit<WalletTransactionsQueryDto, 'page' | 'page_size'>, created: DateRange | undefined): WalletTransactionFilter {
  return { currency: query.currency, kind: query.kind, relatedId: query.related_id, created };
}

/** A transaction's API fields in API order (docs/reports.md, Columns). */
export const WALLET_TRANSACTION_REPORT_COLUMNS = [
  'id',
  'currency',
  'kind',
  'availableDeltaCents',
  'reservedDeltaCents',
  'description',
  'relatedType',
  'relatedId',
  'createdAt',
] as const;

/** The rows of a wallet transactions report (docs/reports.md), newest first, a batch at a time. */
@Injectable()
export class WalletReports {
  constructor(
    private readonly currencies: Currencies,
  ) {}

  /** The report's filters checked as the list checks its query, the creation range always set; 400 naming `filters.<field>`. */
  async filters(accountId: string, given: unknown, now: Date): Promise<Record<string, string>> {
    const query = await listFiltersAsQuery(given, WalletTransactionsQueryDto, WALLET_TRANSACTION_FILTER_FIELDS);
    if (query.currency !== undefined) await this.currencies.check(accountId, query.currency, 'filters.currency');
    const created = reportDateRange(query, now);
    const filter = walletTransactionFilterOf(query, created);
    const stored: Record<string, string | undefined> = {
      currency: filter.currency,
      kind: filter.kind,
      relatedId: filter.relatedId,
      createdGte: created.gte.toISOString(),
      createdLt: created.lt.toISOString(),
    };
    return Object.fromEntries(Object.entries(stored).filter((entry): entry is [string, string] => entry[1] !== undefined));
  }

  async *rows(read: Reader, accountId: string, filters: Record<string, string>, batchSize: number): AsyncGenerator<(string | number)[][]> {
    const created = { gte: new Date(filters.createdGte), lt: new Date(filters.createdLt) };
    const equal = { currency: filters.currency, kind: filters.kind as WalletTransactionKind | undefined, related_id: filters.relatedId };
    const columns = 't.id, t.currency, t.kind, t.available_delta_cents, t.reserved_delta_cents, t.description, t.related_type, t.related_id, t.created_at';
    for await (const batch of readListBatches<TransactionReportRow>(read, { entity: WalletTransactionEntity, accountId, filters: equal, created, columns }, batchSize)) {
      yield batch.map((tx) => [
        tx.id,
        tx.currency,
        tx.kind,
        Number(tx.available_delta_cents),
        Number(tx.reserved_delta_cents),
        tx.description,
        tx.related_type,
        tx.related_id,
        tx.created_at.toISOString(),
      ]);
    }
  }

}

/** A transaction as the driver returns it (bigint as strings). */
interface TransactionReportRow {
  id: string;
  currency: string;
  kind: string;
  available_delta_cents: string;
  reserved_delta_cents: string;
  description: string;
  related_type: string;
  related_id: string;
  created_at: Date;
}
