import { applyPooledSessionDefaults, type AppConfig } from '@app/core';
import { POOLED_USER } from './private-pgbouncer';

/**
 * TEST_THROUGH_PGBOUNCER=1 (docs/testing.md, "Through PgBouncer"): the global setup starts one PgBouncer
 * in transaction mode for the run and sets TEST_PGBOUNCER_PORT; every app, service context and spawned
 * process of the run then serves through it (DATABASE_URL, as POOLED_USER) while its LISTEN connection
 * and migrations go straight to PostgreSQL (DATABASE_DIRECT_URL), as a deployment behind a pooler does.
 * The tests' own connections (process.env.DATABASE_URL, adminDataSource) stay direct.
 */
export const PGBOUNCER_PORT_ENV = 'TEST_PGBOUNCER_PORT';

/** Whether this run serves through the run's PgBouncer. */
export function runThroughPooler(): boolean {
  return !!process.env[PGBOUNCER_PORT_ENV];
}

/** `env` with DATABASE_URL through the run's PgBouncer and DATABASE_DIRECT_URL straight to its database; `env` itself otherwise. */
export function throughRunPooler<T extends Record<string, string | undefined>>(env: T): T {
  const port = process.env[PGBOUNCER_PORT_ENV];
  // A test that names its own direct URL (test/foundation/pgbouncer.e2e-spec.ts, its own PgBouncer) keeps its choice.
  if (!port || !env.DATABASE_URL || env.DATABASE_DIRECT_URL) return env;
  const direct = directUrl(env.DATABASE_URL);
  const pooled = new URL(direct);
  pooled.host = `127.0.0.1:${port}`;
  pooled.username = POOLED_USER;
  pooled.password = '';
  return { ...env, DATABASE_URL: pooled.toString(), DATABASE_DIRECT_URL: direct };
}

/** A URL through the run's PgBouncer back to the same database straight on PostgreSQL, as the run's user; any other URL as it is. */
export function directUrl(url: string): string {
  const port = process.env[PGBOUNCER_PORT_ENV];
  const parsed = new URL(url);
  if (!port || parsed.port !== port) return url;
  const direct = new URL(process.env.TEST_TEMPLATE_DATABASE_URL!);
  direct.pathname = parsed.pathname;
  return direct.toString();
}

/**
 * What the service's start does through a pooler (prepareInfrastructure): its user's defaults in the
 * database. Tests skip the start's migrations (each file's database is a migrated copy), and the defaults
 * belong to a database, so each copy needs them.
 */
export async function preparePooledDatabase(config: AppConfig): Promise<void> {
  await applyPooledSessionDefaults(config);
}
