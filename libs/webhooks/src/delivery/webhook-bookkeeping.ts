import { Inject, Injectable, OnApplicationShutdown, Provider } from '@nestjs/common';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import type { IsolationLevel } from 'typeorm/driver/types/IsolationLevel';
import { APP_CONFIG, AppConfig, dataSourceOptions, queryRows, SESSION_OPTIONS, throughPooler } from '@app/core';

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
 *
 * Both are options of the pool's sessions; through a pooler in transaction mode (docs/scaling.md,
 * PgBouncer) a session is not the pool's own, so each of its transactions sets them with SET LOCAL
 * instead, and a statement made outside one becomes a transaction of its own that does.
 */
export const WEBHOOK_BOOKKEEPING_DB = Symbol('WEBHOOK_BOOKKEEPING_DB');

const BOOKKEEPING_SETTINGS = { synchronous_commit: 'off', enable_bitmapscan: 'off' };
const SET_LOCAL = Object.entries(BOOKKEEPING_SETTINGS)
  .map(([name, value]) => `SET LOCAL ${name} = ${value}`)
  .join('; ');

/** The bookkeeping's settings with SET LOCAL in every transaction (one round trip more), for sessions shared through a pooler. */
class SetLocalDataSource extends DataSource {
  override async query<T = any>(query: string, parameters?: any[], queryRunner?: QueryRunner): Promise<T> {
    if (queryRunner) return super.query<T>(query, parameters, queryRunner);
    return this.transaction((manager) => manager.query(query, parameters) as Promise<T>);
  }

  override transaction<T>(runInTransaction: (entityManager: EntityManager) => Promise<T>): Promise<T>;
  override transaction<T>(isolationLevel: IsolationLevel, runInTransaction: (entityManager: EntityManager) => Promise<T>): Promise<T>;
  override transaction<T>(
    first: IsolationLevel | ((entityManager: EntityManager) => Promise<T>),
    second?: (entityManager: EntityManager) => Promise<T>,
  ): Promise<T> {
    const work = (typeof first === 'function' ? first : second)!;
    const withSettings = async (manager: EntityManager): Promise<T> => {
      await manager.query(SET_LOCAL);
      return work(manager);
    };
    return typeof first === 'function' ? super.transaction(withSettings) : super.transaction(first, withSettings);
  }
}

/**
 * queryRows on the bookkeeping pool, outside a transaction: through a pooler, in one of its own that
 * sets the bookkeeping's settings (queryRows takes a session of its own, past DataSource.query).
 */
export function bookkeepingRows<T>(dataSource: DataSource, sql: string, params: unknown[]): Promise<T[]> {
  if (dataSource instanceof SetLocalDataSource) return dataSource.transaction((manager) => queryRows<T>(manager, sql, params));
  return queryRows<T>(dataSource.manager, sql, params);
}

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
      const pooled = throughPooler(config);
      const options = Object.entries(BOOKKEEPING_SETTINGS)
        .map(([name, value]) => ` -c ${name}=${value}`)
        .join('');
      const dataSource = new (pooled ? SetLocalDataSource : DataSource)({
        ...base,
        migrations: [],
        extra: { ...(base.extra as object), max: POOL_SIZE, ...(pooled ? {} : { options: `${SESSION_OPTIONS}${options}` }), application_name: 'rewards-webhooks' },
      });
      return dataSource.initialize();
    },
  },
  WebhookBookkeepingDataSource,
];
