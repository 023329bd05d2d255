import type { AppConfig } from '../config/app-config';
import { checkRedis, ensureDatabase } from './startup-checks';
import { applyPooledSessionDefaults, checkRuntimeRole, ensureDatabaseRoles } from './database-roles';
import { SESSION_OPTIONS } from './data-source-options';
import { runMigrations } from './run-migrations';

/**
 * What every process does before Nest starts: reach both stores, create the database and the roles,
 * migrate as the owner role, and check that DATABASE_URL can act as the runtime role it serves as
 * (through a pooler: that its sessions do, by the defaults set for its user; docs/scaling.md, PgBouncer).
 */
export async function prepareInfrastructure(config: AppConfig): Promise<void> {
  await ensureDatabase(config);
  await checkRedis(config);
  await ensureDatabaseRoles(config);
  await runMigrations(config);
  await applyPooledSessionDefaults(config);
  await checkRuntimeRole(config, SESSION_OPTIONS);
}
