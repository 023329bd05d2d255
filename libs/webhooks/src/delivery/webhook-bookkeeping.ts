import { Inject, Injectable, OnApplicationShutdown, Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig, dataSourceOptions, SESSION_OPTIONS } from '@app/core';

/**
 * The database connections of the webhook pipeline's own bookkeeping: the relay's fan-out, the
 * deliverer's claims and the recorder's attempt rows (and nothing else: no money, no reward state).
 *
 * Their commits do not wait for the WAL to reach the disk (`synchronous_commit = off`). Each delivery
 * costs three or four commits (fan-out, claim, record), and waiting for a disk flush on each was
 * what bounded the deliveries per second (docs/webhooks.md, Throughput). It is safe because nothing
 * here is the only record of anything: an event is committed durably with the change that caused it,
 * and a crash can lose only the last fraction of a second of bookkeeping, in commit order, as a whole:
 * an event fanned out again (same event id, so the receiver's de-duplication holds), a claim or an
 * outcome forgotten so the attempt is made again. Delivery stays at least once; no event is lost.
 *
 * They also run with bitmap scans off: the claim must walk the (endpoint, next attempt) index in order
 * and stop at its limit, and a planner misled by stale statistics after a burst chose a bitmap scan of
 * every pending entry of the endpoint instead (docs/webhooks.md, Throughput).
 */
export const WEBHOOK_BOOKKEEPING_DB = Symbol('WEBHOOK_BOOKKEEPING_DB');

/** Connections of the bookkeeping pool (one process): claims of up to 16 endpoints at once, the relay, the recorder. */
const POOL_SIZE = 10;

@Injectable()
export class WebhookBookkeepingDataSource implements OnApplicationShutdown {
  constructor(@Inject(WEBHOOK_BOOKKEEPING_DB) private readonly dataSource: DataSource) {}

  /** Closed after the deliverer has recorded its last attempts (that happens before application shutdown). */
  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

export const webhookBookkeepingProviders: Provider[] = [
  {
    provide: WEBHOOK_BOOKKEEPING_DB,
    inject: [APP_CONFIG],
    useFactory: async (config: AppConfig): Promise<DataSource> => {
      const base = dataSourceOptions(config);
      const dataSource = new DataSource({
        ...base,
        migrations: [],
        extra: { ...(base.extra as object), max: POOL_SIZE, options: `${SESSION_OPTIONS} -c synchronous_commit=off -c enable_bitmapscan=off`, application_name: 'rewards-webhooks' },
      });
      return dataSource.initialize();
    },
  },
  WebhookBookkeepingDataSource,
];
