import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { dataSourceOptions } from './data-source-options';
import { MIGRATION_SESSION_OPTIONS } from './database-roles';

// Any fixed number: every instance that starts takes this lock, so two never migrate at once.
const MIGRATION_LOCK = 72_410_001;

/** Runs the pending migrations over DATABASE_MIGRATION_URL, as the owner role (docs/operations.md, Database roles). */
export async function runMigrations(config: AppConfig): Promise<string[]> {
  const dataSource = new DataSource({
    ...dataSourceOptions({ ...config, databaseUrl: config.databaseMigrationUrl, databaseDirectUrl: config.databaseMigrationUrl }),
    // Two sessions: one holds the lock, the other migrates. A migration that fails can leave its own
    // session checked out, and the unlock must not wait for it (destroy() closes both in any case).
    extra: { max: 2, options: MIGRATION_SESSION_OPTIONS, application_name: 'migrations' },
  });
  await dataSource.initialize();
  try {
    const lock = dataSource.createQueryRunner();
    await lock.connect();
    try {
      await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
      return applied.map((m) => m.name);
    } finally {
      await lock.release();
    }
  } finally {
    await dataSource.destroy();
  }
}
