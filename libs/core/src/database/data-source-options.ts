import type { DataSourceOptions } from 'typeorm';
import { throughPooler, type AppConfig } from '../config/app-config';
import { MIGRATIONS } from './migrations';
import { RUNTIME_ROLE } from './database-roles';

/**
 * Settings of every session the service opens to serve (`options` of the pg connection). `role` makes
 * each session act as the runtime role from its first statement, whoever DATABASE_URL logs in as: it
 * may read and write the tables it needs and nothing more: no UPDATE or DELETE of the audit log or
 * the wallet ledger, no DDL, no trigger switches (docs/operations.md, Database roles).
 */
export const SESSION_OPTIONS = `-c jit=off -c role=${RUNTIME_ROLE}`;

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
    extra: { max: 20, connectionTimeoutMillis: 5000, keepAlive: true, ...(throughPooler(config) ? {} : { options: SESSION_OPTIONS }) },
  };
}
