import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { MIGRATIONS } from './migrations';

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
    extra: { max: 20, connectionTimeoutMillis: 5000, keepAlive: true },
  };
}
