import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { dataSourceOptions } from './data-source-options';
import { MIGRATION_SESSION_OPTIONS } from './database-roles';

// Any fixed number: every instance that starts takes this lock, so two never migrate at once.
const MIGRATION_LOCK = 72_410_001;

/** Runs the pending migrations over DATABASE_MIGRATION_URL, as the owner role (docs/operations.md, Database roles). */
export async function runMigrations(config: AppConfig): Promise<string[]> {
  const dataSource = new DataSource({
    ...dataSourceOptions({ ...config, databaseUrl: config.databaseMigrationUrl }),
    extra: { max: 1, options: MIGRATION_SESSION_OPTIONS, application_name: 'migrations' },
  });
  await dataSource.initialize();
  try {
    await dataSource.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      return applied.map((m) => m.name);
    } finally {
      await dataSource.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    await dataSource.destroy();
  }
}
