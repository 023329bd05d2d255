import { Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { DataSource } from 'typeorm';
import { metricsRegistry, SampledMetrics } from '@app/core';

/** Sampled at each scrape from the wallets (docs/operations.md, Metrics). */
export const walletReservedCents = new Gauge({
  name: 'wallet_reserved_cents',
  help: 'Cents held from wallets for rewards and cards not yet issued, by currency.',
  labelNames: ['currency'] as const,
  registers: [metricsRegistry],
});

export const walletsWithHolds = new Gauge({
  name: 'wallets_with_holds',
  help: 'Wallets holding a non-zero amount, by currency.',
  labelNames: ['currency'] as const,
  registers: [metricsRegistry],
});

/** Samples the wallets' holds for the metrics at each scrape, in one query. */
@Injectable()
export class WalletMetrics extends SampledMetrics {
  protected readonly samplerName = 'wallet';

  constructor(private readonly dataSource: DataSource) {
    super();
  }

  protected async sample(): Promise<void> {
    const rows: { currency: string; reserved: number; holding: number }[] = await this.dataSource.query(
      `SELECT currency, COALESCE(SUM(reserved_cents), 0)::float8 AS reserved, COUNT(*) FILTER (WHERE reserved_cents > 0)::int AS holding
         FROM wallets GROUP BY currency`,
    );
    for (const row of rows) {
      walletReservedCents.set({ currency: row.currency }, row.reserved);
      walletsWithHolds.set({ currency: row.currency }, row.holding);
    }
  }
}
