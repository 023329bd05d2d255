import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { MIGRATIONS } from './migrations';

/** Settings of every session the service opens (`options` of the pg connection). */
export const SESSION_OPTIONS = '-c jit=off';

export function dataSourceOptions(config: AppConfig): DataSourceOptions {
  return {
    type: 'postgres',
    url: config.databaseUrl,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    // Never synchronize: the schema is whatever the migrations make it (test/schema.e2e-spec.ts checks they agree).
    synchronize: false,
    migrationsRun: false,
    // A refused or cut connection fails at once (a 503, docs/operations.md, Degraded modes); keep-alive notices one the
    // network dropped silently.
    // No JIT: it pays off for long analytic queries, never for ours. A plan whose estimate crosses
    // jit_above_cost (a list page, while a table's statistics are stale) spent ~45 ms compiling a
    // 2 ms query (docs/operations.md, Database sessions).
    extra: { max: 20, connectionTimeoutMillis: 5000, keepAlive: true, options: SESSION_OPTIONS },
  };
}
