import type { AppConfig } from '../config/app-config';
import { checkRedis, ensureDatabase } from './startup-checks';
import { runMigrations } from './run-migrations';

/** What every process does before Nest starts: reach both stores, create the database, migrate. */
export async function prepareInfrastructure(config: AppConfig): Promise<void> {
  await ensureDatabase(config);
  await checkRedis(config);
  await runMigrations(config);
}
